// Package e2e holds call-member's and end-without-answer's end-to-end tests:
// they build the real mur binary and launch real formations of scripted
// capsules whose members call each other over their doors (tools.md §10–§12,
// formations.md CRED-1..5). It has no non-test code.
package e2e
