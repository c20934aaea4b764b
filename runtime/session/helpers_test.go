package session

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// writeCapsule writes murmur.yaml (and script.yaml when given) into a fresh
// directory and returns it.
func writeCapsule(t *testing.T, manifest, script string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if script != "" {
		if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testEnv is a getenv that sees PATH and the given variables only.
func testEnv(vars map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		if k == "PATH" {
			return os.Getenv("PATH")
		}
		return ""
	}
}

// prepareIn runs Prepare on dir's manifest with task as --task (nil: none).
func prepareIn(t *testing.T, dir string, task *string, mutate func(*Options)) *Launch {
	t.Helper()
	opts := Options{ManifestPath: filepath.Join(dir, "murmur.yaml"), Task: task, Getenv: testEnv(nil), Cwd: dir, Version: "0.1.0"}
	if mutate != nil {
		mutate(&opts)
	}
	l, err := Prepare(opts)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return l
}

func ptr[T any](v T) *T { return &v }

// syncBuf is a Results writer safe for concurrent use.
type syncBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan string // each write, when set
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if b.ch != nil {
		b.ch <- string(p)
	}
	return len(p), nil
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startIn starts a session for l with a fresh MURMUR_HOME.
func startIn(t *testing.T, l *Launch, results *syncBuf, stderr *syncBuf) *Session {
	t.Helper()
	cfg := StartConfig{URL: "http://127.0.0.1:1", Home: t.TempDir(), Results: results, Stderr: stderr}
	if results == nil {
		cfg.Results = nil
	}
	if stderr == nil {
		cfg.Stderr = nil
	}
	s, err := Start(l, cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return s
}

// readTrace reads the session's trace.jsonl: every line must be byte for
// byte what the Writer writes for its record type (tracetest).
func readTrace(t *testing.T, s *Session) []trace.Line {
	t.Helper()
	return tracetest.Records(t, s.RecordsDir())
}

// of decodes the records of type T, in file order.
func of[T trace.Record](t *testing.T, recs []trace.Line) []T {
	t.Helper()
	return tracetest.OfType[T](t, recs)
}

// lines keeps the lines of type T, for their headers and bytes.
func lines[T trace.Record](recs []trace.Line) []trace.Line { return tracetest.Lines[T](recs) }

func types(recs []trace.Line) string { return strings.Join(tracetest.Types(recs), ",") }

func resultTxt(t *testing.T, s *Session) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.RecordsDir(), "out", "result.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeDriver answers from reply and keeps every request it saw.
type fakeDriver struct {
	mu    sync.Mutex
	reqs  []driver.Request
	reply func(ctx context.Context, n int, req *driver.Request) (*driver.Response, error)
}

func (f *fakeDriver) Kind() string { return "scripted" }

func (f *fakeDriver) Complete(ctx context.Context, req *driver.Request) (*driver.Response, error) {
	f.mu.Lock()
	n := len(f.reqs)
	cp := *req
	cp.Messages = append([]driver.Message(nil), req.Messages...)
	f.reqs = append(f.reqs, cp)
	f.mu.Unlock()
	resp, err := f.reply(ctx, n, req)
	if resp != nil {
		body, _ := json.Marshal(req)
		resp.RequestBody = body
		resp.RawBody = []byte(`{}`)
	}
	return resp, err
}

func (f *fakeDriver) requests() []driver.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]driver.Request(nil), f.reqs...)
}

func textReply(s string) *driver.Response {
	return &driver.Response{Blocks: []driver.Block{driver.TextBlock(s)}, StopReason: driver.StopEndTurn}
}

func toolReply(id, name, input string) *driver.Response {
	return &driver.Response{Blocks: []driver.Block{driver.ToolUseBlock(id, name, json.RawMessage(input))}, StopReason: driver.StopToolUse}
}

// lastUserText is the text of a request's last message.
func lastText(req driver.Request) string {
	m := req.Messages[len(req.Messages)-1]
	var parts []string
	for _, b := range m.Blocks {
		switch b.Type {
		case driver.BlockText:
			parts = append(parts, b.Text)
		case driver.BlockToolResult:
			parts = append(parts, b.Content)
		}
	}
	return strings.Join(parts, "\n")
}

func launchProv() tasktable.Provenance {
	return tasktable.Provenance{Origin: a2a.OriginUser, Trust: a2a.TrustTrusted, Source: "task_md"}
}

func userMsg(text string) a2a.Message {
	return a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}
}

const scriptedManifest = `name: t-capsule
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
%s`

// gone reports whether process group pgid has no live member, polling /proc
// briefly: SIGKILL lands asynchronously and nothing announces it.
func gone(pgid int) bool {
	for range 500 {
		if !groupAlive(pgid) {
			return true
		}
		t := time.NewTimer(10 * time.Millisecond)
		<-t.C
	}
	return false
}

func groupAlive(pgid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}
