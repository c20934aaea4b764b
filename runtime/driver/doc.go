// Package driver is the seam between the agent loop and whatever serves
// inference calls (capsule.md §5): the Driver interface, the neutral
// conversation the loop keeps (LOOP-6), the typed errors a driver returns and
// the task_failed cause and reason each one maps to (LOOP-19), and the DRV-8
// token estimates.
//
// The implementations live below: scripted (DRV-7, no network), openai
// (DRV-5, Chat Completions) and anthropic (DRV-6, Messages), the HTTP ones
// each with an in-process fake server (DRV-9).
//
// # Example
//
//	resp, err := d.Complete(ctx, &driver.Request{
//		Model:     "gpt-4o-mini",
//		System:    system,
//		Messages:  conversation,
//		Tools:     inventory,
//		MaxTokens: 8192,
//	})
//	if err != nil {
//		cause, reason := driver.Cause(err), driver.Reason(err) // task_failed fields
//		…
//	}
//	for _, call := range resp.ToolUses() {
//		if call.InputError != "" {
//			result := driver.InvalidToolArguments(call) // DRV-5 tool error
//			…
//		}
//	}
//
// Drivers are safe for concurrent use; Complete never keeps the request or
// its messages after it returns.
package driver
