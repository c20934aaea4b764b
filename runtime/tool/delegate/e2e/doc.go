// Package e2e runs delegate-task and submit-plan's capsule steps end to end
// with the real mur binary (tools.md §13, PLAN-6): a parent capsule, its
// sub-capsules installed in a store, real processes, lifelines and doors.
// Every test proves that no process it started is left.
package e2e
