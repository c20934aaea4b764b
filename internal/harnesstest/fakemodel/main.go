// Command fakemodel runs the project's fake model servers in harness mode
// (process.md PTEST-6) as a process, for examples/harness/run.sh and for
// pointing a real Claude Code or Codex at a script: no key, no network
// beyond loopback.
//
//	fakemodel -provider anthropic -script replies.json [-token T]
//
// It prints `url <base URL>` on stdout once it serves, answers each
// request with the script's next reply (the last one repeats), and on
// SIGTERM or SIGINT prints any request the fake found malformed to stderr
// and exits 1 if there was one.
//
// The script is {"replies": [<reply>, …]}; a reply is {"text": "…"},
// {"tool_uses": [{"name": "mcp__mur__bash", "input": {…}}]} (anthropic) or
// {"tool_calls": [{"name": "bash", "namespace": "mcp__mur", "input": {…}}]}
// (openai), optionally "echo": "<regexp>", which replaces $1 in text with
// the regexp's first group in the request's last message.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"

	anthropic "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	openai "github.com/murmur-go/mur/runtime/driver/openai/fake"
)

// script is the -script file.
type script struct {
	Replies []reply `json:"replies"`
}

type reply struct {
	Text      string `json:"text"`
	Echo      string `json:"echo"`
	ToolUses  []call `json:"tool_uses"`
	ToolCalls []call `json:"tool_calls"`
	Status    int    `json:"status"`
}

type call struct {
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Input     json.RawMessage `json:"input"`
}

// text is r's text with $1 from echo's match in last.
func (r reply) text(last string) string {
	if r.Echo == "" {
		return r.Text
	}
	re, err := regexp.Compile(r.Echo)
	if err != nil {
		return r.Text + " (bad echo: " + err.Error() + ")"
	}
	m := re.FindStringSubmatch(last)
	got := ""
	if len(m) > 1 {
		got = m[1]
	}
	return strings.ReplaceAll(r.Text, "$1", got)
}

// next hands out the replies in order, the last one repeating.
type next struct {
	mu sync.Mutex
	n  int
	s  script
}

func (x *next) take() reply {
	x.mu.Lock()
	defer x.mu.Unlock()
	r := x.s.Replies[min(x.n, len(x.s.Replies)-1)]
	x.n++
	return r
}

func main() {
	provider := flag.String("provider", "anthropic", "anthropic (Claude Code's Messages API) or openai (Codex's Responses API)")
	path := flag.String("script", "", "the replies, JSON")
	token := flag.String("token", "", "the bearer token requests must carry; empty: none")
	flag.Parse()
	b, err := os.ReadFile(*path)
	var s script
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err == nil && len(s.Replies) == 0 {
		err = fmt.Errorf("%s holds no replies", *path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(2)
	}
	x := &next{s: s}
	var url string
	var failures func() []string
	var closeFn func()
	switch *provider {
	case "anthropic":
		srv := anthropic.NewHarness(anthropic.Config{APIKey: *token})
		srv.SetHandler(func(req anthropic.HarnessCapture) anthropic.Reply {
			last := ""
			if ms := req.Decoded.Messages; len(ms) > 0 {
				last = ms[len(ms)-1].Text()
			}
			r := x.take()
			out := anthropic.Reply{Text: r.text(last), Status: r.Status}
			for _, c := range r.ToolUses {
				out.ToolUses = append(out.ToolUses, anthropic.ToolUse{Name: c.Name, Input: string(c.Input)})
			}
			if r.Status != 0 {
				out = anthropic.Status(r.Status, r.Text)
			}
			return out
		})
		url, failures, closeFn = srv.URL, srv.Failures, srv.Close
	case "openai":
		srv := openai.NewResponses(openai.Config{APIKey: *token})
		srv.SetHandler(func(req openai.ResponsesCapture) openai.Reply {
			last := ""
			if its := req.Decoded.Items(); len(its) > 0 {
				last = its[len(its)-1].Text()
			}
			r := x.take()
			if r.Status != 0 {
				return openai.Status(r.Status, r.Text)
			}
			out := openai.Reply{Text: r.text(last)}
			for _, c := range r.ToolCalls {
				out.ToolCalls = append(out.ToolCalls, openai.ToolCall{Name: c.Name, Namespace: c.Namespace, Arguments: string(c.Input)})
			}
			return out
		})
		url, failures, closeFn = srv.URL, srv.Failures, srv.Close
	default:
		fmt.Fprintln(os.Stderr, "fakemodel: -provider is anthropic or openai")
		os.Exit(2)
	}
	fmt.Printf("url %s\n", url)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	closeFn()
	if f := failures(); len(f) > 0 {
		fmt.Fprintln(os.Stderr, "fakemodel: malformed requests:\n  "+strings.Join(f, "\n  "))
		os.Exit(1)
	}
}
