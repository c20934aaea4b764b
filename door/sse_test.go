package door

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// openStream posts body (headers as post) and returns the response of a
// stream, which must carry the SSE-1 headers.
func (td *testDoor) openStream(token, body string, hdr ...string) (*http.Response, *bufio.Reader) {
	td.t.Helper()
	resp, err := http.DefaultClient.Do(td.request(http.MethodPost, "", token, body, hdr...))
	if err != nil {
		td.t.Fatal(err)
	}
	td.t.Cleanup(func() { resp.Body.Close() })
	h := resp.Header
	if resp.StatusCode != 200 || h.Get("Content-Type") != "text/event-stream" || h.Get("Cache-Control") != "no-cache" ||
		h.Get("Connection") != "keep-alive" || resp.ContentLength != -1 {
		td.t.Fatalf("stream answer = %d %v (length %d), want SSE-1 headers", resp.StatusCode, h, resp.ContentLength)
	}
	return resp, bufio.NewReader(resp.Body)
}

// nextEvent reads one event (its lines, without the blank line); "" at EOF.
func nextEvent(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	var ev strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if ev.Len() > 0 || line != "" {
				t.Fatalf("stream ended inside an event: %q", ev.String()+line)
			}
			return ""
		}
		if line == "\n" {
			return ev.String()
		}
		ev.WriteString(line)
	}
}

// streamEvent decodes an A2A stream event: one data line holding a JSON-RPC
// response (SSE-2).
func streamEvent(t *testing.T, ev string, id string) a2a.StreamResponse {
	t.Helper()
	line, ok := strings.CutPrefix(ev, "data: ")
	if !ok || strings.Count(ev, "\n") != 1 {
		t.Fatalf("event %q is not one data line", ev)
	}
	var r struct {
		JSONRPC string             `json:"jsonrpc"`
		ID      json.RawMessage    `json:"id"`
		Result  a2a.StreamResponse `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.JSONRPC != "2.0" || string(r.ID) != id {
		t.Fatalf("event %q: %v (id %s, want %s)", line, err, r.ID, id)
	}
	return r.Result
}

func kind(r a2a.StreamResponse) string {
	switch {
	case r.Task != nil:
		return "task:" + string(r.Task.Status.State)
	case r.StatusUpdate != nil:
		return "status:" + string(r.StatusUpdate.Status.State)
	case r.ArtifactUpdate != nil:
		return "artifact:" + r.ArtifactUpdate.Artifact.Name
	}
	return "?"
}

// TestSendStreaming_METHSS2_SSE3 streams one task from SUBMITTED to
// COMPLETED, then the door ends the response.
func TestSendStreaming_METHSS2_SSE3(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	body := strings.Replace(sendBody("forty-two", ""), `"method":"SendMessage"`, `"method":"SendStreamingMessage"`, 1)
	body = strings.Replace(body, `"id":1`, `"id":"s-1"`, 1)
	_, br := td.openStream("", body)
	first := streamEvent(t, nextEvent(t, br), `"s-1"`)
	if kind(first) != "task:TASK_STATE_SUBMITTED" {
		t.Fatalf("first event = %s, want the SUBMITTED task", kind(first))
	}
	ex := startExecutor(td.reg)
	defer ex.Stop()
	var kinds []string
	for ev := nextEvent(t, br); ev != ""; ev = nextEvent(t, br) {
		r := streamEvent(t, ev, `"s-1"`)
		kinds = append(kinds, kind(r))
		if r.ArtifactUpdate != nil && (!r.ArtifactUpdate.LastChunk || a2a.Text(r.ArtifactUpdate.Artifact.Parts) != "forty-two") {
			t.Errorf("response artifact = %+v", r.ArtifactUpdate)
		}
	}
	want := "status:TASK_STATE_WORKING artifact:response status:TASK_STATE_COMPLETED"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("events = %s, want %s", got, want)
	}
}

// TestSendStreamingRefusals_METHSS1: refusals are one plain body; a task
// refused for room is a stream of one REJECTED task.
func TestSendStreamingRefusals_METHSS1(t *testing.T) {
	td := startDoor(t, opts{acceptance: tasktable.ModeSingle, noExecutor: true})
	stream := func(extra string) string {
		return strings.Replace(sendBody("x", extra), `"method":"SendMessage"`, `"method":"SendStreamingMessage"`, 1)
	}
	r := td.call("", strings.Replace(stream(""), `"ROLE_USER"`, `"ROLE_AGENT"`, 1))
	if r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("invalid streaming send = %+v, want -32602 as JSON", r.Error)
	}
	td.call("", sendBody("first", ""))
	_, br := td.openStream("", stream(""))
	ev := streamEvent(t, nextEvent(t, br), "1")
	if kind(ev) != "task:TASK_STATE_REJECTED" || a2a.Text(ev.Task.Status.Message.Parts) != a2a.StatusBusy {
		t.Errorf("busy stream = %+v", ev.Task)
	}
	if rest := nextEvent(t, br); rest != "" {
		t.Errorf("busy stream continued with %q", rest)
	}
}

// TestSubscribe_METHST1_METHST2: every subscriber sees the same events and
// the stream ends after the terminal update; an ended task is -32004.
func TestSubscribe_METHST1_METHST2(t *testing.T) {
	td := startDoor(t, opts{})
	held := td.call("", sendBody("hold", "")).task(t, true)
	sub := `{"jsonrpc":"2.0","id":5,"method":"SubscribeToTask","params":{"id":"` + string(held.ID) + `"}}`
	_, a := td.openStream("", sub)
	_, b := td.openStream("", sub)
	for _, br := range []*bufio.Reader{a, b} {
		first := streamEvent(t, nextEvent(t, br), "5")
		if first.Task == nil || first.Task.ID != held.ID {
			t.Fatalf("first event = %+v, want the task", first)
		}
	}
	td.call("", idCall("CancelTask", string(held.ID)))
	for _, br := range []*bufio.Reader{a, b} {
		var kinds []string
		for ev := nextEvent(t, br); ev != ""; ev = nextEvent(t, br) {
			kinds = append(kinds, kind(streamEvent(t, ev, "5")))
		}
		if last := kinds[len(kinds)-1]; last != "status:TASK_STATE_CANCELED" {
			t.Errorf("events = %v, want to end CANCELED", kinds)
		}
	}
	r := td.call("", sub)
	if r.Error == nil || r.Error.Code != -32004 || r.Error.Data[0].Metadata["state"] != "TASK_STATE_CANCELED" {
		t.Errorf("subscribe to an ended task = %+v, want -32004", r.Error)
	}
}

// TestHeartbeat_SSE4 finds the heartbeat comment on an idle stream.
func TestHeartbeat_SSE4(t *testing.T) {
	td := startDoor(t, opts{heartbeat: time.Millisecond})
	held := td.call("", sendBody("hold", "")).task(t, true)
	// Running before the stream opens, so the stream's first event is its
	// WORKING state and nothing is pending on it when the door shuts down.
	<-td.exec.Runs()
	_, br := td.openStream("", `{"jsonrpc":"2.0","id":5,"method":"SubscribeToTask","params":{"id":"`+string(held.ID)+`"}}`)
	streamEvent(t, nextEvent(t, br), "5")
	for {
		ev := nextEvent(t, br)
		if ev == ":heartbeat\n" {
			break
		}
		t.Fatalf("event %q before the heartbeat", ev)
	}
}

// TestStreamLag_SSE5: a reader more than 128 events behind is cut, and the
// stream ends with one error event.
func TestStreamLag_SSE5(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	ex := startExecutor(td.reg)
	defer ex.Stop()
	held := td.call("", sendBody("hold", "")).task(t, true)
	run := <-ex.Runs()
	_, br := td.openStream("", `{"jsonrpc":"2.0","id":5,"method":"SubscribeToTask","params":{"id":"`+string(held.ID)+`"}}`)
	// Far more than the socket buffers can hold (here at most 4 MiB sent and
	// 32 MiB received): the door's writer blocks while the registry keeps
	// publishing, and the subscription falls more than 128 events behind.
	text := strings.Repeat("x", 96<<10)
	const updates = 600
	for range updates {
		run.Status(text)
	}
	var last string
	n := 0
	for ev := nextEvent(t, br); ev != ""; ev = nextEvent(t, br) {
		last, n = ev, n+1
	}
	if n >= updates || !strings.HasPrefix(last, `data: {"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"the stream fell more than 128 events behind`) {
		t.Errorf("after %d events the stream ended with %.200q, want the lag error", n, last)
	}
}

// TestShutdownEndsStreams_SSE5: Shutdown ends an open stream and a blocking
// SendMessage, which answers the task as it stands.
func TestShutdownEndsStreams_SSE5(t *testing.T) {
	td := startDoor(t, opts{})
	held := td.call("", sendBody("hold", "")).task(t, true)
	// Running before the stream opens, so the stream's first event is its
	// WORKING state and nothing is pending on it when the door shuts down.
	<-td.exec.Runs()
	_, br := td.openStream("", `{"jsonrpc":"2.0","id":5,"method":"SubscribeToTask","params":{"id":"`+string(held.ID)+`"}}`)
	streamEvent(t, nextEvent(t, br), "5")
	type answer struct {
		body string
		err  error
	}
	blocked := make(chan answer, 1) // the blocking call's one answer
	go func() {
		body := strings.Replace(sendBody("hold", ""), `"returnImmediately":true`, `"returnImmediately":false`, 1)
		req, _ := http.NewRequest(http.MethodPost, td.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			blocked <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		blocked <- answer{string(b), err}
	}()
	<-td.exec.Runs() // the blocking call's task is running
	if err := td.door.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	if ev := nextEvent(t, br); ev != "" {
		t.Errorf("stream after shutdown: %q", ev)
	}
	a := <-blocked
	if a.err != nil {
		t.Fatalf("blocking send: %v", a.err)
	}
	var r rpcReply
	if err := json.Unmarshal([]byte(a.body), &r); err != nil {
		t.Fatalf("blocking send answered %q: %v", a.body, err)
	}
	tk := r.task(t, true)
	if tk.Status.State.Terminal() {
		t.Errorf("blocking send at shutdown = %s, want the live task as it stands", tk.Status.State)
	}
}
