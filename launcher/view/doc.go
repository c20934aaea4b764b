// Package view is the server of `mur view`: a read-only web page,
// on 127.0.0.1 only, that shows a formation (or one session) as it runs or
// as its records left it.
//
// It finds the member sessions from the running records and the records
// directories (formations.md DIR-1, DIR-2, FCLI-5; capsule.md SES-3, SES-6),
// reads each trace.jsonl as it grows (capsule.md §6; tools.md CALL-11,
// RND-2), and follows each running member door's stream/watch with the
// session's operator token, which never leaves this process (door.md
// SSE-6..9). What it learns is one model of members, calls and tasks; the
// page gets a snapshot and then every change over server-sent events, and
// asks for a task's timeline, read back from the trace, when it is clicked.
// Every request must carry the view token that the printed URL holds (as
// ?token=, or the cookie the page's first load sets).
//
// Goroutines: Run owns them all — the HTTP server, one poller (traces every
// Config.Poll, discovery every fifth poll), one flusher (the model's changes
// to the open event streams), and one watcher per running door — and waits
// for each before it returns.
//
// # Example
//
//	target, err := view.Locate(home, "frm_01a2…") // E-VIEW-001/002 as *diag.Diagnostic
//	v, err := view.New(view.Config{Home: home, Target: target, Token: view.NewToken()})
//	ln, err := net.Listen("tcp", "127.0.0.1:0")
//	err = v.Run(ctx, ln) // until ctx ends
package view
