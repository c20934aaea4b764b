//go:build !kube

package launcher

import (
	"context"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/runtime/diag"
)

// KubeTarget is where `mur run --roster --on kubernetes` puts the
// formation. A mur built without the kube tag carries the flags only; the
// mur CLI hands such a run to mur-kube before it reaches the launcher.
type KubeTarget struct {
	Kubeconfig string
	Context    string
	Namespace  string
	Image      string
}

// kubeLaunch refuses: this build links no Kubernetes client.
func (l *launch) kubeLaunch(context.Context) int {
	dir := "the running mur's directory"
	if exe, err := os.Executable(); err == nil {
		dir = filepath.Dir(exe)
	}
	return l.fail(diag.RunNoKube(dir))
}
