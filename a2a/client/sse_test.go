package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
)

func TestReadSSE_SSE2_SSE4(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want []sseEvent
	}{
		{"one event", "data: {}\n\n", []sseEvent{{data: "{}"}}},
		{"blank lines separate", "data: a\n\ndata: b\n\n", []sseEvent{{data: "a"}, {data: "b"}}},
		{"heartbeat comments skipped", ":heartbeat\n\ndata: a\n\n:heartbeat\n\n", []sseEvent{{data: "a"}}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []sseEvent{{data: "a"}, {data: "b"}}},
		{"multi-line data", "data: a\ndata: b\n\n", []sseEvent{{data: "a\nb"}}},
		{"no space after colon", "data:a\n\n", []sseEvent{{data: "a"}}},
		{"id and event", "id: 7\nevent: status\ndata: {}\n\n", []sseEvent{{id: "7", event: "status", data: "{}"}}},
		{"event without data dropped", "event: x\n\ndata: y\n\n", []sseEvent{{data: "y"}}},
		{"cut off event dropped", "data: a\n\ndata: b", []sseEvent{{data: "a"}}},
		{"unknown field ignored", "retry: 10\ndata: a\n\n", []sseEvent{{data: "a"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []sseEvent
			for ev, err := range readSSE(strings.NewReader(tc.in), 1<<20) {
				if err != nil {
					t.Fatalf("readSSE(%q) error = %v", tc.in, err)
				}
				got = append(got, ev)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("readSSE(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestReadSSEBounded(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"long line":  "data: " + strings.Repeat("x", 200) + "\n\n",
		"long event": strings.Repeat("data: "+strings.Repeat("x", 40)+"\n", 10) + "\n",
	} {
		var err error
		for _, e := range readSSE(strings.NewReader(in), 100) {
			err = e
		}
		if !errors.Is(err, ErrResponseTooLarge) {
			t.Errorf("readSSE(%s) error = %v, want ErrResponseTooLarge", name, err)
		}
	}
}

func FuzzReadSSE(f *testing.F) {
	f.Add("data: {}\n\n:heartbeat\n\nid: 1\nevent: status\ndata: x\n\n")
	f.Add("data\n\ndata:\r\n\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		for ev, err := range readSSE(strings.NewReader(in), 256) {
			if err == nil && len(ev.data) > 256 {
				t.Fatalf("event data of %d bytes over the bound", len(ev.data))
			}
		}
	})
}

// sseServer answers every request with an event stream written by fn; the
// request's JSON-RPC id is passed to fn. done is closed when a handler returns.
func sseServer(t *testing.T, fn func(w http.ResponseWriter, r *http.Request, id string)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		id := "0"
		if _, rest, ok := strings.Cut(string(b), `"id":`); ok {
			id, _, _ = strings.Cut(rest, ",")
		}
		fn(w, r, id)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeStream(w http.ResponseWriter, chunks ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for _, c := range chunks {
		io.WriteString(w, c)
		w.(http.Flusher).Flush()
	}
}

func event(id, result string) string {
	return `data: {"jsonrpc":"2.0","id":` + id + `,"result":` + result + "}\n\n"
}

// A stream yields the task, its updates and the terminal status (door.md SSE-2, SSE-3).
func TestSendStreamingMessage_SSE3(t *testing.T) {
	t.Parallel()
	srv := sseServer(t, func(w http.ResponseWriter, r *http.Request, id string) {
		if r.Header.Get("Accept") != "text/event-stream" {
			t.Errorf("Accept = %q, want text/event-stream", r.Header.Get("Accept"))
		}
		writeStream(w,
			":heartbeat\n\n",
			event(id, `{"task":`+taskJSON+`}`),
			event(id, `{"artifactUpdate":{"taskId":"tsk_1","contextId":"ctx_1","artifact":{"artifactId":"response","name":"response","parts":[{"text":"42"}]},"lastChunk":true}}`),
			":heartbeat\r\n\r\n",
			event(id, `{"statusUpdate":{"taskId":"tsk_1","contextId":"ctx_1","status":{"state":"TASK_STATE_COMPLETED"}}}`))
	})
	c := mustNew(t, Config{BaseURL: srv.URL})
	var kinds []string
	for ev, err := range c.SendStreamingMessage(context.Background(), a2a.SendMessageRequest{}) {
		if err != nil {
			t.Fatalf("SendStreamingMessage() error = %v", err)
		}
		switch {
		case ev.Task != nil:
			kinds = append(kinds, "task:"+string(ev.Task.Status.State))
		case ev.ArtifactUpdate != nil:
			kinds = append(kinds, "artifact:"+a2a.Text(ev.ArtifactUpdate.Artifact.Parts))
		case ev.StatusUpdate != nil:
			kinds = append(kinds, "status:"+string(ev.StatusUpdate.Status.State))
		}
	}
	want := []string{"task:TASK_STATE_WORKING", "artifact:42", "status:TASK_STATE_COMPLETED"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("events = %v, want %v", kinds, want)
	}
}

// A door failure after the stream started is one final error event (SSE-2).
func TestStreamFinalErrorEvent_SSE2(t *testing.T) {
	t.Parallel()
	srv := sseServer(t, func(w http.ResponseWriter, r *http.Request, id string) {
		writeStream(w, event(id, `{"task":`+taskJSON+`}`),
			`data: {"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32603,"message":"the session ended"}}`+"\n\n")
	})
	c := mustNew(t, Config{BaseURL: srv.URL})
	var n int
	var last error
	for _, err := range c.SubscribeToTask(context.Background(), a2a.SubscribeToTaskRequest{ID: "tsk_1"}) {
		n++
		last = err
	}
	var ae *a2a.Error
	if n != 2 || !errors.As(last, &ae) || !errors.Is(last, a2a.ErrInternal) || ae.Message != "the session ended" {
		t.Errorf("got %d items, last error %v; want the task, then -32603", n, last)
	}
}

// Refusals come as one plain JSON-RPC body before any stream byte (METH-SS-1, RPC-3).
func TestStreamRefusedBeforeStream_METHSS1(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"error":"insufficient_scope","message":"credential 'ci' does not reach SendStreamingMessage"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32009,"message":"A2A version '' is not supported; this agent speaks 1.0","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org","metadata":{"requestedVersion":"","supportedVersions":"1.0"}}]}}`)
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	var errs []error
	for _, err := range mustNew(t, Config{BaseURL: srv.URL}).SendStreamingMessage(ctx, a2a.SendMessageRequest{}) {
		errs = append(errs, err)
	}
	if len(errs) != 1 || !errors.Is(errs[0], a2a.ErrVersionNotSupported) {
		t.Errorf("errors = %v, want one -32009", errs)
	}
	errs = nil
	for _, err := range mustNew(t, Config{BaseURL: srv.URL, Token: "t"}).SendStreamingMessage(ctx, a2a.SendMessageRequest{}) {
		errs = append(errs, err)
	}
	var he *HTTPError
	if len(errs) != 1 || !errors.As(errs[0], &he) || he.Status != 403 || he.Code != "insufficient_scope" {
		t.Errorf("errors = %v, want one HTTP 403 insufficient_scope", errs)
	}
}

func TestStreamBadEvents(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"wrong id":    event("99999", `{"task":`+taskJSON+`}`),
		"not json":    "data: {\n\n",
		"json result": "",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := sseServer(t, func(w http.ResponseWriter, r *http.Request, id string) {
				if body == "" {
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
					return
				}
				writeStream(w, body)
			})
			var last error
			for _, err := range mustNew(t, Config{BaseURL: srv.URL}).SubscribeToTask(context.Background(), a2a.SubscribeToTaskRequest{ID: "t"}) {
				last = err
			}
			if !errors.Is(last, ErrBadResponse) {
				t.Errorf("error = %v, want ErrBadResponse", last)
			}
		})
	}
}

// Breaking out of the range closes the connection; the door sees the client leave.
func TestStreamBreakCloses(t *testing.T) {
	t.Parallel()
	left := make(chan struct{})
	srv := sseServer(t, func(w http.ResponseWriter, r *http.Request, id string) {
		writeStream(w, event(id, `{"task":`+taskJSON+`}`))
		<-r.Context().Done()
		close(left)
	})
	for ev, err := range mustNew(t, Config{BaseURL: srv.URL}).SubscribeToTask(context.Background(), a2a.SubscribeToTaskRequest{ID: "t"}) {
		if err != nil || ev.Task == nil {
			t.Fatalf("first event = %+v, %v; want the task", ev, err)
		}
		break
	}
	<-left
}

// Watch yields numbered and unnumbered frames and sends Last-Event-ID (door.md SSE-6..9).
func TestWatch_SSE7_SSE9(t *testing.T) {
	t.Parallel()
	lastIDs := make(chan string, 1) // one request
	srv := sseServer(t, func(w http.ResponseWriter, r *http.Request, id string) {
		lastIDs <- r.Header.Get("Last-Event-ID")
		writeStream(w,
			"event: connection-ack\ndata: {\"role\":\"observer\",\"conversation_mode\":\"stateless\"}\n\n",
			":heartbeat\n\n",
			"id: 4\nevent: status\ndata: {\"id\":\"tsk_1\"}\n\n",
			"event: capsule-closed\ndata: {}\n\n")
	})
	var got []string
	for f, err := range mustNew(t, Config{BaseURL: srv.URL}).Watch(context.Background(), 3) {
		if err != nil {
			t.Fatalf("Watch() error = %v", err)
		}
		got = append(got, fmt.Sprintf("%d %s %s", f.ID, f.Event, f.Data))
	}
	want := []string{`0 connection-ack {"role":"observer","conversation_mode":"stateless"}`, `4 status {"id":"tsk_1"}`, "0 capsule-closed {}"}
	if gotLast := <-lastIDs; !reflect.DeepEqual(got, want) || gotLast != "3" {
		t.Errorf("Watch() = %q with Last-Event-ID %q, want %q with 3", got, gotLast, want)
	}
}

func TestWatchErrorLine_SSE2(t *testing.T) {
	t.Parallel()
	srv := sseServer(t, func(w http.ResponseWriter, r *http.Request, id string) {
		if r.Header.Get("Last-Event-ID") != "" {
			t.Errorf("Last-Event-ID = %q, want none for 0", r.Header.Get("Last-Event-ID"))
		}
		writeStream(w, "event: connection-ack\ndata: {}\n\n",
			`data: {"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32603,"message":"boom"}}`+"\n\n")
	})
	var last error
	for _, err := range mustNew(t, Config{BaseURL: srv.URL}).Watch(context.Background(), 0) {
		last = err
	}
	if !errors.Is(last, a2a.ErrInternal) {
		t.Errorf("Watch() last error = %v, want -32603", last)
	}
}
