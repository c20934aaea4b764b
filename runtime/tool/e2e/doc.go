// Package e2e holds pull-artifact's, remove-artifact's and submit-plan's
// end-to-end tests: they build the real mur binary and run scripted
// capsules that pull tools from the stores, call and remove them, and
// submit plans (tools.md §9, §14). It has no non-test code.
package e2e
