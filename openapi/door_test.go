package openapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/internal/doortest"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// TestMain points MURMUR_HOME at a temporary directory.
func TestMain(m *testing.M) { os.Exit(testmur.WithHome(m)) }

type doorOpts struct {
	auth      bool
	peerTasks bool
	peer      door.PeerFiles // exports.peer_files; nil: none
}

// testDoor is a real door on loopback with an executor: "hold" waits for a
// cancel, "fail:<m>" fails with m, "ask:<q>" asks q and completes with the
// reply, anything else completes "ok".
type testDoor struct {
	door    *door.Server
	url     string
	session string
	tokens  map[string]string // credential → token
}

func newDoor(t *testing.T, o doorOpts) *testDoor {
	t.Helper()
	reg, err := tasktable.New(tasktable.Config{Acceptance: tasktable.ModeQueue, QueueDepth: 64})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	td := &testDoor{url: "http://" + ln.Addr().String(), session: a2a.NewID(a2a.PrefixSession), tokens: map[string]string{}}
	cfg := door.Config{
		Registry:   reg,
		Card:       agentcard.Config{Name: "described", Version: "1.0.0", URL: td.url, Tools: []string{"lint"}},
		Acceptance: tasktable.ModeQueue,
		PeerTasks:  o.peerTasks,
		SessionID:  td.session,
		PeerFiles:  o.peer,
	}
	if o.auth {
		toks, err := door.MintTokens([]door.Credential{{Name: "reader", Scopes: []string{a2a.MethodGetTask}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range toks {
			td.tokens[tk.Credential] = string(tk.Value)
		}
		cfg.Auth = &door.Auth{Realm: "described", Tokens: toks}
	}
	if td.door, err = door.New(cfg); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1) // Serve's one result
	go func() { served <- td.door.Serve(ln) }()
	ex := doortest.Start(reg, doortest.Script{Answer: doortest.Answers("ok"), Failure: func(m string) tasktable.Outcome {
		return tasktable.Outcome{State: a2a.TaskStateFailed, Message: m, Murmur: &a2a.MurmurTaskMetadata{NoAnswer: true}}
	}}.Execute)
	t.Cleanup(func() {
		ex.Stop()
		if err := td.door.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown() error = %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve() error = %v, want ErrServerClosed", err)
		}
	})
	return td
}

// answer is one raw HTTP answer.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request; hdr holds "Key: value" lines ("Key:" removes a default).
func (td *testDoor) do(t *testing.T, method, path, token string, body []byte, hdr ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, td.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(a2a.HeaderVersion, a2a.ProtocolVersion)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ":")
		if v = strings.TrimSpace(v); v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

// request renders a JSON-RPC request.
func request(id any, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id != nil {
		m["id"] = id
	}
	b, _ := json.Marshal(m)
	return b
}

// sseData splits an event stream into its events: for each, the fields.
func sseEvents(body []byte) []map[string]string {
	var out []map[string]string
	cur := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if len(cur) > 0 {
				out = append(out, cur)
				cur = map[string]string{}
			}
		case strings.HasPrefix(line, ":"):
		default:
			k, v, _ := strings.Cut(line, ": ")
			cur[k] = v
		}
	}
	return out
}
