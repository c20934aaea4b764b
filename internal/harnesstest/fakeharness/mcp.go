package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bridge is the fake's MCP client session with mur's loopback tool server.
type bridge struct {
	s *mcp.ClientSession
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session on url with token; nil when it fails.
func connect(url, token string) *bridge {
	if badToken {
		token = "mtt_wrong"
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "fakeharness", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}},
		DisableStandaloneSSE: true, MaxRetries: -1}
	s, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		return nil
	}
	if _, err := s.ListTools(context.Background(), nil); err != nil {
		return nil
	}
	return &bridge{s: s}
}

// connectStdio opens an MCP session with the stdio server command args
// starts, as codex does: with only HOME and PATH in its environment. A bad
// token run hands it a copy of its file (the last argument) with a wrong
// token.
func connectStdio(command string, args []string) *bridge {
	if command == "" || len(args) == 0 {
		return nil
	}
	args = slices.Clone(args)
	if badToken {
		b, err := os.ReadFile(args[len(args)-1])
		if err != nil {
			return nil
		}
		var f map[string]any
		if json.Unmarshal(b, &f) != nil {
			return nil
		}
		f["token"] = "mtt_wrong"
		b, _ = json.Marshal(f)
		bad := filepath.Join(stateDir, "bad-bridge.json")
		if os.WriteFile(bad, b, 0o600) != nil {
			return nil
		}
		args[len(args)-1] = bad
	}
	cmd := exec.Command(command, args...)
	cmd.Env = []string{"HOME=" + os.Getenv("HOME"), "PATH=" + os.Getenv("PATH")}
	cmd.Stderr = os.Stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "fakeharness", Version: "1"}, nil)
	s, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil
	}
	if _, err := s.ListTools(context.Background(), nil); err != nil {
		return nil
	}
	return &bridge{s: s}
}

// call runs a tools/call with meta and returns its text and isError.
func (b *bridge) call(name string, args json.RawMessage, meta mcp.Meta) (string, bool) {
	if b == nil {
		return "no MCP server", true
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := b.s.CallTool(context.Background(), &mcp.CallToolParams{Meta: meta, Name: name, Arguments: args})
	if err != nil {
		return "call failed: " + err.Error(), true
	}
	text := ""
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text += t.Text
		}
	}
	received(Result{Name: name, Text: text, IsError: res.IsError})
	return text, res.IsError
}

// Result is one results.jsonl line: a bridged call's answer as the fake
// received it, so a test can compare what the harness read with the trace.
type Result struct {
	Name    string `json:"name"`
	Text    string `json:"text"`
	IsError bool   `json:"is_error"`
}

// received appends r to <state>/results.jsonl.
func received(r Result) {
	f, err := os.OpenFile(filepath.Join(stateDir, "results.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	b, _ := json.Marshal(r)
	fmt.Fprintf(f, "%s\n", b)
}

// spawn starts `sleep secs` in the fake's process group and leaves it,
// appending its pid to record.
func spawn(secs int, record string) {
	cmd := exec.Command("sleep", strconv.Itoa(secs))
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	f, err := os.OpenFile(record, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	fmt.Fprintln(f, cmd.Process.Pid)
}
