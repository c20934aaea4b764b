package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// proxyFor runs Proxy on the file at path in a goroutine, with an MCP
// stdio client's end of two pipes, and returns the client's transport and
// Proxy's result.
func proxyFor(t *testing.T, path string) (*mcp.IOTransport, <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Proxy(context.Background(), path, inR, outW)
		outW.Close()
		done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return &mcp.IOTransport{Reader: outR, Writer: inW}, done
}

func writeProxyFile(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bridge.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProxy is PROC-7's stdio MCP server: an MCP client on its stdio
// initializes, lists BRG-3's tools and makes a call that reaches Dispatch,
// with the bearer from the file; at the client's close the proxy ends the
// MCP session and returns nil.
func TestProxy(t *testing.T) {
	t.Parallel()
	s := startTest(t, Config{}, 0)
	s.BeginRun()
	s.ToolUse(0, "", "bash") // codex's mcp_tool_call item: no call id
	tr, done := proxyFor(t, writeProxyFile(t, s.ProxyConfig()))
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("initialize through the proxy: %v", err)
	}
	lt, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "session-status,bash,call-member,notes" {
		t.Errorf("tools/list = %s", got)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"args": "ls"},
		Meta: mcp.Meta{"callId": "call_1"}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != `name=bash args={"args":"ls"} id=call_1 turn=0 refusal=` {
		t.Errorf("tools/call = %q", txt)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("Proxy = %v", err)
	}
}

// TestProxyRefused: with a wrong bearer in the file, initialize is
// answered with a JSON-RPC error naming the bridge's 401, so the
// harness's handshake fails (HEV-8); a file that is not a proxy file is
// Proxy's error before it reads a line.
func TestProxyRefused(t *testing.T) {
	t.Parallel()
	s := startTest(t, Config{}, 0)
	var f proxyFile
	if err := json.Unmarshal(s.ProxyConfig(), &f); err != nil {
		t.Fatal(err)
	}
	f.Token = "mtt_wrong"
	b, _ := json.Marshal(f)
	tr, done := proxyFor(t, writeProxyFile(t, b))
	if _, err := io.WriteString(tr.Writer, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(tr.Reader).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the loopback tool server answered HTTP 401: {\"error\":\"unauthorized\"}"}}` + "\n"
	if line != want {
		t.Errorf("answer = %s, want %s", line, want)
	}
	tr.Writer.Close()
	if err := <-done; err != nil {
		t.Errorf("Proxy = %v", err)
	}

	if err := Proxy(context.Background(), writeProxyFile(t, []byte(`{"url":""}`)), strings.NewReader(""), io.Discard); err == nil ||
		!strings.Contains(err.Error(), "not a bridge proxy file") {
		t.Errorf("Proxy of a bad file = %v", err)
	}
}
