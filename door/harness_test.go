package door

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/internal/doortest"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/tasktable"
)

const testSession = "ses_019f01a940ce7761854e768ecbe3d399"

// opts shapes a test door.
type opts struct {
	acceptance  tasktable.Mode
	depth       int
	peerTasks   bool
	auth        bool
	declared    []Credential
	formation   *Formation
	maxBody     int64
	heartbeat   time.Duration // 0: DefaultHeartbeat
	maxConns    int           // 0: DefaultMaxConnections
	bodyBytes   int64         // 0: DefaultBodyBytes
	bodyWait    time.Duration // 0: DefaultBodyTimeout
	noExecutor  bool
	immediate   bool // the executor completes every task at once, whatever its text
	logs        *testmur.Buffer
	completions Completions
	peer        PeerFiles // exports.peer_files; nil: no plane
}

// testDoor is a door served on a real loopback listener, with an executor
// goroutine pulling its tasks.
type testDoor struct {
	t      testing.TB
	door   *Server
	reg    *tasktable.Registry
	url    string
	tokens map[string]string // credential → token
	exec   *doortest.Executor
}

func startDoor(t testing.TB, o opts) *testDoor {
	t.Helper()
	return startDoorWith(t, o, nil)
}

// startDoorWith is startDoor with edit applied to the door's Config last.
func startDoorWith(t testing.TB, o opts, edit func(*Config)) *testDoor {
	t.Helper()
	t.Setenv("MURMUR_HOME", t.TempDir())
	if o.acceptance == "" {
		o.acceptance = tasktable.ModeQueue
	}
	if o.depth == 0 {
		o.depth = 16
	}
	reg, err := tasktable.New(tasktable.Config{Acceptance: o.acceptance, QueueDepth: o.depth})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	td := &testDoor{t: t, reg: reg, url: "http://" + ln.Addr().String(), tokens: map[string]string{}}
	logger := slog.New(slog.DiscardHandler)
	if o.logs != nil {
		logger = slog.New(slog.NewTextHandler(o.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	cfg := Config{
		Registry:   reg,
		Card:       agentcard.Config{Name: "coder", Version: "1.2.0", URL: td.url},
		Acceptance: o.acceptance,
		PeerTasks:  o.peerTasks,
		SessionID:  testSession,
		Logger:     logger,
		MaxBody:    o.maxBody,

		MaxConnections: o.maxConns,
		BodyBytes:      o.bodyBytes,
		BodyTimeout:    o.bodyWait,
		Completions:    o.completions,
		PeerFiles:      o.peer,
	}
	cfg.Heartbeat = o.heartbeat
	if o.auth {
		toks, err := MintTokens(o.declared)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range toks {
			td.tokens[tk.Credential] = string(tk.Value)
		}
		cfg.Auth = &Auth{Realm: "coder", Tokens: toks, Formation: o.formation}
	}
	if edit != nil {
		edit(&cfg)
	}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	td.door = d
	served := make(chan error, 1) // Serve's one result
	go func() { served <- d.Serve(ln) }()
	switch {
	case o.immediate:
		td.exec = doortest.Start(reg, doortest.Complete("done"))
	case !o.noExecutor:
		td.exec = startExecutor(reg)
	}
	t.Cleanup(func() {
		if td.exec != nil {
			td.exec.Stop()
		}
		if err := d.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown() error = %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve() error = %v, want ErrServerClosed", err)
		}
	})
	return td
}

// startExecutor runs reg's tasks by doortest's script: "hold", "ask:<q>",
// "fail:<m>", anything else completes with its text.
func startExecutor(reg *tasktable.Registry) *doortest.Executor { return doortest.Start(reg, nil) }

// reply is one HTTP answer, body read in full.
type reply struct {
	status int
	header http.Header
	body   string
}

// post sends body to POST / with the door's usual headers (JSON content
// type, A2A-Version 1.0) plus hdr ("Key: value" lines; a "Key:" line with
// no value removes a default). token "" sends no Authorization.
func (td *testDoor) post(token, body string, hdr ...string) reply {
	td.t.Helper()
	return td.do(http.MethodPost, "/", token, body, hdr...)
}

// request builds a request to path with post's headers and token rules.
func (td *testDoor) request(method, path, token, body string, hdr ...string) *http.Request {
	td.t.Helper()
	req, err := http.NewRequest(method, td.url+path, strings.NewReader(body))
	if err != nil {
		td.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ":")
		v = strings.TrimSpace(v)
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Add(k, v)
	}
	return req
}

func (td *testDoor) do(method, path, token, body string, hdr ...string) reply {
	td.t.Helper()
	resp, err := http.DefaultClient.Do(td.request(method, path, token, body, hdr...))
	if err != nil {
		td.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		td.t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// rpcReply is a decoded JSON-RPC answer.
type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    []a2a.ErrorInfo `json:"data"`
	} `json:"error"`
}

// call posts a JSON-RPC request and decodes the answer, which must be HTTP
// 200 application/json (DOOR-6).
func (td *testDoor) call(token, body string, hdr ...string) rpcReply {
	td.t.Helper()
	rep := td.post(token, body, hdr...)
	if rep.status != http.StatusOK || rep.header.Get("Content-Type") != "application/json" {
		td.t.Fatalf("POST %s = %d %q %s, want 200 application/json", body, rep.status, rep.header.Get("Content-Type"), rep.body)
	}
	var r rpcReply
	if err := json.Unmarshal([]byte(rep.body), &r); err != nil {
		td.t.Fatalf("answer %s: %v", rep.body, err)
	}
	return r
}

// task decodes a result that is a Task, or {"task": Task} when wrapped.
func (r rpcReply) task(t *testing.T, wrapped bool) a2a.Task {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("answer is error %d %s", r.Error.Code, r.Error.Message)
	}
	if wrapped {
		var sr a2a.SendMessageResponse
		if err := json.Unmarshal(r.Result, &sr); err != nil || sr.Task == nil {
			t.Fatalf("result %s is not {task}: %v", r.Result, err)
		}
		return *sr.Task
	}
	var tk a2a.Task
	if err := json.Unmarshal(r.Result, &tk); err != nil {
		t.Fatalf("result %s is not a task: %v", r.Result, err)
	}
	return tk
}

func sendBody(text string, extra string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":` +
		quoteJSON(text) + `}]` + extra + `},"configuration":{"returnImmediately":true}}}`
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func newFormation(t testing.TB, member string) (*Formation, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Formation{ID: "frm_019f01a940ce7761854e768ecbe3d3aa", Member: member, PublicKey: pub}, priv
}
