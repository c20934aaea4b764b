// Package e2e runs process capsules end to end (process.md PTEST-1,
// PTEST-4, PTEST-5, PTEST-8): the real mur binary driving the fake harness
// of internal/harnesstest/fakeharness, and — when the npm registry is
// reachable, or always under MURMUR_HARNESS_E2E=1 — the real Claude Code
// and Codex CLIs against the project's fake model servers in harness mode.
// Every test proves that no process a run started outlives it.
package e2e
