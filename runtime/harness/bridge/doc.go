// Package bridge is the loopback tool server of a process session
// (process.md §3, BRG-1…9): an MCP streamable-HTTP server on 127.0.0.1 that
// offers a harness CLI (Claude Code, Codex) exactly the session's
// tools_declared and answers each tools/call with the text the http loop
// would put in the tool_result.
//
// The package speaks the protocol and keeps the wire's rules; it names no
// tool and no session. What a call does is the caller's Dispatch, the same
// dispatcher the http loop uses, so fences, notes and the deadline notice
// come out byte for byte alike (BRG-5).
//
// # Example
//
//	srv, err := bridge.Start(bridge.Config{
//		Tools:    reg.Inventory(), // session_start.tools_declared, in order (BRG-3)
//		Version:  version,         // serverInfo.version
//		Dispatch: func(ctx context.Context, c bridge.Call) bridge.Answer {
//			// c.Refusal set: run nothing, write tool_call, answer it unfenced (BRG-7).
//			return answer(ctx, c)
//		},
//	})
//	if err != nil { … }
//	defer srv.Close(context.Background())
//	os.WriteFile(filepath.Join(h, "mcp.json"), srv.ClaudeConfig(), 0o600) // claude (PROC-6)
//	os.WriteFile(filepath.Join(h, "bridge.json"), srv.ProxyConfig(), 0o600) // codex (PROC-7)
//
//	srv.BeginRun()                 // before each harness process starts
//	srv.Turn(turn)                 // the event reader saw turn open (HEV-3)
//	srv.ToolUse(turn, id, name)    // … and a tool call in it (BRG-6)
//	srv.EndRun()                   // after the process is reaped
//
// # The wire (BRG-1, BRG-2)
//
// One listener on 127.0.0.1:<OS port>, path /mcp, JSON responses only. Every
// request must carry "Authorization: Bearer <token>" (401 with
// WWW-Authenticate: Bearer and {"error":"unauthorized"} otherwise); other
// paths are 404, a body over 8 MiB is 413, GET is 405, DELETE ends the MCP
// session named by Mcp-Session-Id and answers 200. server/discover and any
// method not listed in BRG-2 answer JSON-RPC -32601; initialize negotiates
// 2025-03-26, 2025-06-18 or 2025-11-25 (else 2025-11-25) and sets a 32-hex
// Mcp-Session-Id; notifications answer 202; ping {}; tools/list is
// Config.Tools unpaged, in order; resources/list, resources/templates/list
// and prompts/list are empty (BRG-4).
//
// The MCP Go SDK (github.com/modelcontextprotocol/go-sdk) runs the protocol:
// sessions, the initialize handshake and version negotiation, ping,
// notifications, JSON responses. Where BRG-2 asks for what the SDK does
// differently, this package answers itself, in front of the SDK (http.go)
// or in a receiving middleware (methods.go); each such place says which
// behaviour it keeps.
//
// # Calls (BRG-5…8)
//
// Calls are dispatched one at a time in arrival order (a second call waits).
// A call carries its tool call id (claude's _meta["claudecode/toolUseId"],
// codex's _meta.callId) and is attributed to a turn, waiting up to 5 s for
// the event stream to show it, then taking the newest turn (BRG-6): a
// claude call by its id, which its tool_use block carries; a codex call by
// order among the uses of its tool, since codex's mcp_tool_call item ids
// ("item_0") are not the call's (verified with 0.169.0: the call's _meta
// holds callId and itemId from the model's function_call instead). A call while no run is in progress reaches Dispatch
// with Refusal set (BRG-7); max_turns and end-without-answer refusals are
// the dispatcher's, with this package's texts (texts.go). Config.Activity
// hears the number of calls in flight, so the harness's inactivity window
// can reset and pause (BRG-8). What a harness then shows its model around
// the text (codex's "Wall time: <s> seconds\nOutput:", Claude Code's own
// notices) is the harness's, not a contract here (BRG-9).
//
// # The token
//
// Minted per Start: "mtt_" and 32 random bytes, base64url (BRG-1). It lives
// in memory, in <H>/mcp.json (ClaudeConfig) and in <H>/bridge.json
// (ProxyConfig), which `mur __mcp-proxy`, the stdio MCP server codex
// starts, reads (Proxy); never in argv, an environment, a log or a trace. Token's String,
// GoString, LogValue, MarshalText and MarshalJSON are redacted; Reveal is
// the one way to the secret.
package bridge
