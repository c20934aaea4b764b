package bridge

import "fmt"

// The texts this package puts on the wire or hands the dispatcher, in one
// place. BRG-7's refusals are the model's to read: unfenced, isError.

// RefusalNoRun refuses a call that arrives while no harness run of the
// session is in progress (BRG-7).
const RefusalNoRun = "tool calls are answered only while a harness run is in progress"

// RefusalMaxTurns refuses a call of a turn inference.max_turns stops
// (BRG-7, PROC-14).
func RefusalMaxTurns(name string, maxTurns int) string {
	return fmt.Sprintf("tool '%s' was not run: inference.max_turns (%d) was reached", name, maxTurns)
}

// RefusalEnding refuses a call of a later turn once end-without-answer was
// accepted (BRG-7, PROC-15).
func RefusalEnding(name string) string {
	return fmt.Sprintf("'%s' is not answered: this task is ending without an answer.", name)
}

// Wire texts (ours where BRG-1/2 name none).
const (
	textNameRequired   = "tools/call requires a name" // BRG-5's -32602
	textMethodNotFound = "Method not found"           // JSON-RPC 2.0's -32601 message
	bodyUnauthorized   = `{"error":"unauthorized"}`   // BRG-1
	bodyNotFound       = `{"error":"not found"}`
	bodyTooLarge       = `{"error":"request body exceeds 8 MiB"}`
	bodyNotAllowed     = `{"error":"method not allowed"}`
	bodyNoSession      = `{"error":"session not found"}`
	bodyNeedsSession   = `{"error":"DELETE requires an Mcp-Session-Id header"}`
)
