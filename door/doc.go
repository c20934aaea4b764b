// Package door is a capsule session's A2A door (door.md): the chi router, the
// ORD-1 checks in order, the JSON-RPC envelope, every method, the A2A and
// stream/watch SSE writers, door tokens and formation-token checks, and the
// door's own Prometheus registry at GET /metrics.
//
// The door never runs a task: it validates each request and answers it from
// the session's task table (Registry, satisfied by *task.Registry), which the
// runtime pulls work from.
//
// # Example
//
//	reg, _ := task.New(task.Config{Acceptance: task.ModeQueue, QueueDepth: 4})
//	ln, _ := net.Listen("tcp", "127.0.0.1:0")
//	tokens, _ := door.MintTokens(nil) // operator only
//	d, err := door.New(door.Config{
//		Registry:   reg,
//		Card:       agentcard.Config{Name: "coder", Version: "1.2.0", URL: "http://" + ln.Addr().String()},
//		Acceptance: task.ModeQueue,
//		SessionID:  "ses_…",
//		Auth:       &door.Auth{Realm: "coder", Tokens: tokens},
//	})
//	go d.Serve(ln)
//	defer d.Shutdown(ctx)
//
// # Goroutines
//
// net/http runs one goroutine per connection; the door starts none of its
// own. A stream (SendStreamingMessage, SubscribeToTask, stream/watch) or a
// blocking SendMessage holds its request goroutine until the task table ends
// it, the client leaves, or Shutdown, after which it writes what it holds
// within 500 ms.
package door
