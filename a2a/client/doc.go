// Package client is the A2A v1.0 JSON-RPC client every mur part that calls a
// door uses: call-member (tools.md CALL-3, CALL-10), the formation launcher's
// readiness probe (formations.md READY-2), `mur stop` (session/stop) and the
// conformance suite.
//
// Every request carries `A2A-Version: 1.0`, `Content-Type: application/json`
// and, when Config.Token is set, `Authorization: Bearer <token>`; when the
// call's context holds a valid OpenTelemetry span context, its W3C
// `traceparent` (and `tracestate`) go too, so every A2A caller propagates
// trace context (OTEL-1). JSON-RPC ids are unique per Client. Errors are typed:
//
//   - a JSON-RPC error is an *a2a.Error, so errors.Is(err, a2a.ErrTaskNotFound) works;
//   - an HTTP refusal (door.md AUTH-7, PEER-2, DOOR-4, DOOR-5) is an *HTTPError;
//   - a door that did not answer (refused or reset connection, per-request
//     timeout, context deadline) is a *NoAnswerError: test with IsNoAnswer;
//   - an answer that is not a JSON-RPC response wraps ErrBadResponse.
//
// Streams (SendStreamingMessage, SubscribeToTask, Watch) are iter.Seq2 values:
// each range sends the request anew and yields events until the door closes
// the stream; a JSON-RPC error before or inside the stream is yielded once as
// the error, and breaking out of the loop closes the connection.
//
// A Client is safe for concurrent use.
//
// # Example
//
// ExampleClient_SendMessage sends a message to a door, reads the task back
// and tells a door that did not answer (IsNoAnswer, Classify) from one that
// refused. Streams are ranged over:
//
//	for ev, err := range c.SubscribeToTask(ctx, a2a.SubscribeToTaskRequest{ID: resp.Task.ID}) { … }
package client
