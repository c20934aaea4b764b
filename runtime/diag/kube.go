package diag

// ERUN052 is a `mur run --roster --on kubernetes` (or a member pod's start)
// that reached a mur built without Kubernetes support, with no mur-kube to
// hand the command to.
const ERUN052 Code = "E-RUN-052"

// RunNoKube is E-RUN-052. dir is the directory of the running mur, where
// mur-kube was looked for before PATH.
func RunNoKube(dir string) *Diagnostic {
	return mk(ERUN052, "this mur is built without Kubernetes support, and no mur-kube (mur built with it) was found in "+dir+" or on PATH",
		`build it from mur's source tree: go build -tags kube -o "$(go env GOPATH)/bin/mur-kube" ./cmd/mur, with $(go env GOPATH)/bin on PATH; the mur image holds a mur built with it`)
}
