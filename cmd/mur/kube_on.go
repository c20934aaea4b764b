//go:build kube

package main

// kubeHandoff is for a mur built without the kube tag; this one serves
// Kubernetes itself.
func kubeHandoff(*Env, string, []string) (int, bool) { return 0, false }
