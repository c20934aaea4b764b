package bridge

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestClientSDK drives the bridge with the go-sdk MCP client over loopback
// HTTP: it connects (its server/discover answered -32601, then
// initialize), lists exactly the declared tools in order, calls one with
// claude's _meta and one the session lacks, and its Close ends its MCP
// session on the server (BRG-2, BRG-3, BRG-5).
func TestClientSDK(t *testing.T) {
	s := startTest(t, Config{}, 0)
	s.BeginRun()
	s.ToolUse(2, "toolu_9", "bash")
	cs := client(t, s)
	got := cs.InitializeResult()
	caps, _ := json.Marshal(got.Capabilities) // the SDK's types drop listChanged:false; nothing else is offered
	if got.ProtocolVersion != "2025-11-25" || got.ServerInfo.Name != "mur" || got.ServerInfo.Version != "0.1.0" ||
		string(caps) != `{"tools":{}}` {
		t.Errorf("initialize result: %+v, capabilities %s", got, caps)
	}
	lt, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.Tools) != len(testTools) {
		t.Fatalf("tools/list: %d tools, want %d", len(lt.Tools), len(testTools))
	}
	for i, tl := range lt.Tools {
		want := testTools[i]
		schema, _ := json.Marshal(tl.InputSchema)
		wantSchema := `{"properties":{},"type":"object"}`
		if want.InputSchema != nil {
			wantSchema = compact(t, string(want.InputSchema)) // keys sorted, as the client's decoded schema marshals
		}
		if tl.Name != want.Name || tl.Description != want.Description || string(schema) != wantSchema {
			t.Errorf("tool %d: %s %q %s, want %s %q %s", i, tl.Name, tl.Description, schema, want.Name, want.Description, wantSchema)
		}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"args": "ls"},
		Meta: mcp.Meta{"claudecode/toolUseId": "toolu_9"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); res.IsError || got != `name=bash args={"args":"ls"} id=toolu_9 turn=2 refusal=` {
		t.Errorf("bash: %q isError %v", got, res.IsError)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no-such-tool"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != `name=no-such-tool args={} id= turn=2 refusal=` {
		t.Errorf("unknown tool reached Dispatch as %q", got)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	for ss := range s.mcp.Sessions() {
		t.Errorf("session %s still open after the client's Close", ss.ID())
	}
}

// text is a call result's one text block.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content: %d blocks", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content: %T", res.Content[0])
	}
	return tc.Text
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
