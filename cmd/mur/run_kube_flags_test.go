package main

import (
	"strings"
	"testing"
	"time"
)

// --on kubernetes takes its Kubernetes flags with it; each is refused
// without it, and the image has no default.
func TestRosterKubeFlags(t *testing.T) {
	now := time.Now()
	f, err := parseRosterFlags(strings.Fields("--roster . --on kubernetes --image mur:1 --namespace team --kube-context dev --kubeconfig /k"), now)
	if err != nil {
		t.Fatal(err)
	}
	if k := f.kube; k == nil || k.Image != "mur:1" || k.Namespace != "team" || k.Context != "dev" || k.Kubeconfig != "/k" {
		t.Fatalf("kube target = %+v", f.kube)
	}
	if f, err := parseRosterFlags([]string{"--roster"}, now); err != nil || f.kube != nil {
		t.Fatalf("no --on: kube = %+v, err %v", f.kube, err)
	}
	for args, want := range map[string]string{
		"--roster --namespace team":                                        "--namespace needs --on kubernetes",
		"--roster --image mur:1 --namespace team":                          "--image needs --on kubernetes",
		"--roster --on kubernetes":                                         "--on kubernetes needs --image <ref>: the mur image every member pod runs",
		"--roster --on nomad --image x":                                    "--on 'nomad': the only target is kubernetes",
		"--roster --on kubernetes --image x --resume frm_0123456789abcdef": "--resume cannot be used with --on kubernetes: the formation's records are on this machine, not in its pods",
	} {
		_, err := parseRosterFlags(strings.Fields(args), now)
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %q", args, err, want)
		}
	}
}
