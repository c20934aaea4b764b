// Package arch holds no code: its test, TestImportRules, enforces the
// dependency direction of STYLE.md §2 over `go list -deps -json ./...`.
package arch
