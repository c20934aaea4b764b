// Package door is a capsule session's A2A door (door.md): the chi router, the
// ORD-1 checks in order, the JSON-RPC envelope, every method, the A2A and
// stream/watch SSE writers, door tokens and formation-token checks, and the
// door's own Prometheus registry at GET /metrics.
//
// The door never runs a task: it validates each request and answers it from
// the session's task table (Registry, satisfied by *tasktable.Registry), which the
// runtime pulls work from.
//
// ExampleNew serves a public door on a loopback port and sends it a
// message.
//
// # Goroutines
//
// net/http runs one goroutine per connection; the door starts none of its
// own. A stream (SendStreamingMessage, SubscribeToTask, stream/watch) or a
// blocking SendMessage holds its request goroutine until the task table ends
// it, the client leaves, or Shutdown, after which it writes what it holds
// within 500 ms.
package door
