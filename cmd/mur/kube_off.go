//go:build !kube

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/murmur-go/mur/runtime/diag"
)

// kubeMemberCommand is how a member pod starts (docs/kubernetes.md); only a
// mur built with the kube tag serves it.
const kubeMemberCommand = "__kube-member"

// kubeBinary is mur built with the kube tag. The default build links no
// Kubernetes client, so that every formation member's start stays small;
// what needs one is handed to kubeBinary with the same arguments.
const kubeBinary = "mur-kube"

// runKubeMember hands a member pod's start to mur-kube.
func runKubeMember(env *Env, args []string) int {
	code, _ := kubeHandoff(env, kubeMemberCommand, append([]string{kubeMemberCommand}, args...))
	return code
}

// kubeHandoff replaces this process with mur-kube running argv — found
// beside this mur, then on PATH — and, when there is none, reports E-RUN-052
// for cmd. It returns only to report a failure, always handled.
func kubeHandoff(env *Env, cmd string, argv []string) (int, bool) {
	self, err := os.Executable()
	if err != nil {
		return fail(env, cmd, err), true
	}
	path, err := findKube(self)
	if err != nil {
		return fail(env, cmd, diag.RunNoKube(filepath.Dir(self))), true
	}
	err = syscall.Exec(path, append([]string{path}, argv...), os.Environ())
	return fail(env, cmd, fmt.Errorf("%s could not be started: %w", path, err)), true
}

// findKube is mur-kube beside self, else on PATH; never self itself.
func findKube(self string) (string, error) {
	me, err := os.Stat(self)
	if err != nil {
		return "", err
	}
	for _, find := range []func() (string, error){
		func() (string, error) { return exec.LookPath(filepath.Join(filepath.Dir(self), kubeBinary)) },
		func() (string, error) { return exec.LookPath(kubeBinary) },
	} {
		p, err := find()
		if err != nil {
			continue
		}
		if st, err := os.Stat(p); err == nil && !os.SameFile(st, me) {
			return p, nil
		}
	}
	return "", errors.New(kubeBinary + " not found")
}
