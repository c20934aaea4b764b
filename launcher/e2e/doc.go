// Package e2e holds the formation's end-to-end tests: they build the real
// mur binary and launch real formations of scripted capsules (formations.md
// LAUNCH-*, READY-*, LIFE-*, CRED-*, FCLI-*). It has no non-test code.
package e2e
