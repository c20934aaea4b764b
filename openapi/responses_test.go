package openapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
)

// rpcCase drives one JSON-RPC call and checks it against the document.
type rpcCase struct {
	t     *testing.T
	d     *document
	td    *testDoor
	token string
}

// call sends method with params (validated first against the document's
// request and params schemas), checks the answer against the operation, and
// validates a result against the method's result schema. It returns the result.
func (c *rpcCase) call(what, method string, params any, hdr ...string) json.RawMessage {
	c.t.Helper()
	body := request(7, method, params)
	c.d.validate(c.t, what+" (request)", "#/components/schemas/JSONRPCRequest", body)
	pb, _ := json.Marshal(params)
	c.d.validate(c.t, what+" (params)", refOf(c.d.method(method)["params"]), pb)
	return c.raw(what, method, body, hdr...)
}

// raw sends body as is and checks the answer; method names the result schema.
func (c *rpcCase) raw(what, method string, body []byte, hdr ...string) json.RawMessage {
	c.t.Helper()
	a := c.td.do(c.t, http.MethodPost, "/", c.token, body, hdr...)
	c.d.exchange(c.t, what, http.MethodPost, "/", a.status, a.header, a.body)
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	if a.status != http.StatusOK || json.Unmarshal(a.body, &resp) != nil || resp.Result == nil {
		return nil
	}
	if ref := refOf(c.d.method(method)["result"]); ref != "" {
		c.d.validate(c.t, what+" (result)", ref, resp.Result)
	}
	return resp.Result
}

// expectError checks the answer to body is JSON-RPC error code.
func (c *rpcCase) expectError(what string, body []byte, code int, hdr ...string) {
	c.t.Helper()
	a := c.td.do(c.t, http.MethodPost, "/", c.token, body, hdr...)
	c.d.exchange(c.t, what, http.MethodPost, "/", a.status, a.header, a.body)
	var resp struct {
		Error *struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal(a.body, &resp); err != nil || resp.Error == nil || resp.Error.Code != code {
		c.t.Errorf("%s: HTTP %d %s, want JSON-RPC error %d", what, a.status, a.body, code)
	}
	c.d.validate(c.t, what, "#/components/schemas/JSONRPCErrorResponse", a.body)
}

func message(text string, edit ...func(map[string]any)) map[string]any {
	m := map[string]any{"messageId": a2a.NewID(a2a.PrefixMessage), "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	for _, e := range edit {
		e(m)
	}
	return m
}

func send(text string, immediate bool, edit ...func(map[string]any)) map[string]any {
	return map[string]any{"message": message(text, edit...), "configuration": map[string]any{"returnImmediately": immediate}}
}

func taskOf(t *testing.T, raw json.RawMessage) a2a.Task {
	t.Helper()
	var r struct {
		Task *a2a.Task `json:"task"`
	}
	if err := json.Unmarshal(raw, &r); err == nil && r.Task != nil {
		return *r.Task
	}
	var tk a2a.Task
	if err := json.Unmarshal(raw, &tk); err != nil || tk.ID == "" {
		t.Fatalf("result %s holds no task", raw)
	}
	return tk
}

// Real answers of a public door validate against the document (door.md §1–§9).
func TestPublicDoorAnswersValidate(t *testing.T) {
	t.Parallel()
	d := loadDocument(t)
	td := newDoor(t, doorOpts{})
	c := &rpcCase{t: t, d: d, td: td}

	a := td.do(t, http.MethodGet, a2a.WellKnownCardPath, "", nil)
	d.exchange(t, "card", http.MethodGet, a2a.WellKnownCardPath, a.status, a.header, a.body)
	a = td.do(t, http.MethodGet, "/metrics", "", nil)
	d.exchange(t, "metrics", http.MethodGet, "/metrics", a.status, a.header, a.body)

	c.call("SendMessage returnImmediately", a2a.MethodSendMessage, send("ok", true))
	failed := taskOf(t, c.call("SendMessage to a failing task", a2a.MethodSendMessage, send("fail:no answer", false)))
	asked := taskOf(t, c.call("SendMessage to a question", a2a.MethodSendMessage, send("ask:which file?", false)))
	if asked.Status.State != a2a.TaskStateInputRequired || failed.Status.State != a2a.TaskStateFailed {
		t.Fatalf("tasks %s and %s, want INPUT_REQUIRED and FAILED", asked.Status.State, failed.Status.State)
	}
	c.call("SendMessage with a reply", a2a.MethodSendMessage, send("README.md", false, func(m map[string]any) {
		m["taskId"], m["contextId"] = string(asked.ID), string(asked.ContextID)
	}))
	c.call("GetTask with history", a2a.MethodGetTask, map[string]any{"id": string(asked.ID), "historyLength": 10})
	c.call("ListTasks with artifacts", a2a.MethodListTasks, map[string]any{"pageSize": 2, "includeArtifacts": true})
	hold := taskOf(t, c.call("SendMessage to a held task", a2a.MethodSendMessage, send("hold", true)))
	c.call("CancelTask", a2a.MethodCancelTask, map[string]any{"id": string(hold.ID)})
	c.call("GetExtendedAgentCard on a public door", a2a.MethodGetExtendedAgentCard, map[string]any{})
	c.call("a push config method", a2a.MethodCreateTaskPushNotificationConfig, map[string]any{"taskId": string(hold.ID)})

	id := func(method string, params any) []byte { return request(9, method, params) }
	c.expectError("-32700", []byte(`{"jsonrpc":"2.0","id":1,`), -32700)
	c.expectError("-32600", []byte(`{"jsonrpc":"1.0","id":1,"method":"GetTask"}`), -32600)
	c.expectError("-32601", id("tasks/get", map[string]any{"id": "x"}), -32601)
	c.expectError("-32602", id(a2a.MethodGetTask, map[string]any{}), -32602)
	c.expectError("-32001", id(a2a.MethodGetTask, map[string]any{"id": "tsk_none"}), -32001)
	c.expectError("-32002", id(a2a.MethodCancelTask, map[string]any{"id": string(hold.ID)}), -32002)
	c.expectError("-32003", id(a2a.MethodListTaskPushNotificationConfigs, map[string]any{}), -32003)
	c.expectError("-32004", id(a2a.MethodSendMessage, send("more", true, func(m map[string]any) { m["taskId"] = string(failed.ID) })), -32004)
	c.expectError("-32005", id(a2a.MethodSendMessage, send("x", true, func(m map[string]any) {
		m["parts"] = []any{map[string]any{"url": "https://example.com/a.png", "mediaType": "image/png"}}
	})), -32005)
	c.expectError("-32009", id(a2a.MethodGetTask, map[string]any{"id": "x"}), -32009, "A2A-Version: 0.3")
	c.expectError("-31001", id(a2a.MethodSendMessage, send("x", true)), -31001, "x-murmur-task-origin: completion")
	c.expectError("-31002", id(a2a.MethodSendMessage, send("x", true)), -31002,
		"x-murmur-task-origin: completion", "x-murmur-completion-session: "+td.session)

	a = td.do(t, http.MethodPost, "/", "", request(nil, a2a.MethodGetTask, map[string]any{"id": "x"}))
	d.exchange(t, "a notification", http.MethodPost, "/", a.status, a.header, a.body)
	a = td.do(t, http.MethodPost, "/", "", request(1, a2a.MethodGetTask, map[string]any{"id": "x"}), "x-murmur-task-origin: peer")
	d.exchange(t, "a refused peer", http.MethodPost, "/", a.status, a.header, a.body)
	a = td.do(t, http.MethodPost, "/", "", request(1, a2a.MethodGetTask, map[string]any{"id": "x"}), "Content-Type: text/plain")
	d.exchange(t, "a text/plain body", http.MethodPost, "/", a.status, a.header, a.body)
	a = td.do(t, http.MethodPost, "/", "", bytes.Repeat([]byte(" "), 8<<20+1))
	d.exchange(t, "a body over 8 MiB", http.MethodPost, "/", a.status, a.header, a.body)

	streams(t, d, td)
	c.call("session/stop", a2a.MethodSessionStop, map[string]any{})
}

// streams checks A2A stream events and stream/watch frames (SSE-1..9).
func streams(t *testing.T, d *document, td *testDoor) {
	t.Helper()
	eventRef := refOf(d.at("paths", "/", "post", "responses", "200", "content", "text/event-stream", "x-event-data"))
	a := td.do(t, http.MethodPost, "/", "", request(3, a2a.MethodSendStreamingMessage, send("ok", false)))
	d.exchange(t, "SendStreamingMessage", http.MethodPost, "/", a.status, a.header, a.body)
	evs := sseEvents(a.body)
	if len(evs) < 3 {
		t.Fatalf("SendStreamingMessage: %d events, want task, updates and the final status", len(evs))
	}
	for _, ev := range evs {
		d.validate(t, "SendStreamingMessage event", eventRef, []byte(ev["data"]))
	}

	// SubscribeToTask on a held task, canceled while the stream is open.
	c := &rpcCase{t: t, d: d, td: td}
	hold := taskOf(t, c.call("SendMessage to a held task", a2a.MethodSendMessage, send("hold", true)))
	resp, br := openStream(t, td, request(4, a2a.MethodSubscribeToTask, map[string]any{"id": string(hold.ID)}), nil)
	d.validate(t, "SubscribeToTask first event", eventRef, []byte(nextEvent(t, br)["data"]))
	c.call("CancelTask", a2a.MethodCancelTask, map[string]any{"id": string(hold.ID)})
	for ev := nextEvent(t, br); ev != nil; ev = nextEvent(t, br) {
		d.validate(t, "SubscribeToTask event", eventRef, []byte(ev["data"]))
	}
	resp.Body.Close()

	// stream/watch: connection-ack, then the replay of this door's frames.
	frames, _ := d.at("paths", "/", "post", "responses", "200", "content", "text/event-stream", "x-watch-frames").(map[string]any)
	resp, br = openStream(t, td, request(5, a2a.MethodStreamWatch, map[string]any{}), nil)
	defer resp.Body.Close()
	for i := range 6 {
		ev := nextEvent(t, br)
		if ev == nil {
			t.Fatalf("stream/watch ended after %d frames", i)
		}
		ref := refOf(frames[ev["event"]])
		if ref == "" {
			t.Errorf("stream/watch frame %q is not in x-watch-frames", ev["event"])
			continue
		}
		d.validate(t, "stream/watch "+ev["event"]+" frame", ref, []byte(ev["data"]))
	}
}

// openStream posts body and returns the open event stream.
func openStream(t *testing.T, td *testDoor, body []byte, hdr http.Header) (*http.Response, *bufio.Reader) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, td.url+"/", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(a2a.HeaderVersion, a2a.ProtocolVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		t.Fatalf("HTTP %d %s, want an event stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp, bufio.NewReader(resp.Body)
}

// nextEvent reads one event's fields; nil at the end of the stream.
func nextEvent(t *testing.T, br *bufio.Reader) map[string]string {
	t.Helper()
	ev := map[string]string{}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && len(ev) > 0:
			return ev
		case line == "", strings.HasPrefix(line, ":"):
		default:
			k, v, _ := strings.Cut(line, ": ")
			ev[k] = v
		}
	}
}

// An authenticated door's refusals and extended card validate (AUTH-7, CARD-7).
func TestAuthenticatedDoorAnswersValidate(t *testing.T) {
	t.Parallel()
	d := loadDocument(t)
	td := newDoor(t, doorOpts{auth: true, peerTasks: true})
	body := request(1, a2a.MethodListTasks, map[string]any{})
	for what, token := range map[string]string{"no token": "", "a bad token": "mdt_bad", "a token without the scope": td.tokens["reader"]} {
		a := td.do(t, http.MethodPost, "/", token, body)
		d.exchange(t, what, http.MethodPost, "/", a.status, a.header, a.body)
		if a.status != http.StatusUnauthorized && a.status != http.StatusForbidden {
			t.Errorf("%s: HTTP %d, want a refusal", what, a.status)
		}
	}
	a := td.do(t, http.MethodGet, a2a.WellKnownCardPath, "", nil)
	d.exchange(t, "public card", http.MethodGet, a2a.WellKnownCardPath, a.status, a.header, a.body)
	c := &rpcCase{t: t, d: d, td: td, token: td.tokens["operator"]}
	if r := c.call("GetExtendedAgentCard", a2a.MethodGetExtendedAgentCard, map[string]any{}); r == nil {
		t.Error("GetExtendedAgentCard answered no result")
	}
	c.call("ListTasks", a2a.MethodListTasks, map[string]any{})
}
