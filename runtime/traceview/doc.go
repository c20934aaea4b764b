// Package traceview reads a session's trace.jsonl strictly and renders the
// `mur trace show` summary (capsule.md CLI-9, CLI-10).
//
// # Example
//
//	tr, err := traceview.Read(path) // E-TRC-001 on a malformed line or a missing session_start/session_end
//	if err != nil { … }
//	fmt.Print(traceview.Render(tr))
package traceview
