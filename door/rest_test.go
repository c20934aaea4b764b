package door

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
)

// restBody is an HTTP+JSON SendMessageRequest with text.
func restBody(text string, immediate bool) string {
	cfg := ""
	if immediate {
		cfg = `,"configuration":{"returnImmediately":true}`
	}
	return `{"message":{"messageId":"m-` + text + `","role":"ROLE_USER","parts":[{"text":"` + text + `"}]}` + cfg + `}`
}

// status decodes a google.rpc.Status body (A2A §11.6).
type restStatus struct {
	Error struct {
		Code    int             `json:"code"`
		Status  string          `json:"status"`
		Message string          `json:"message"`
		Details []a2a.ErrorInfo `json:"details"`
	} `json:"error"`
}

// wantStatus checks an HTTP+JSON error answer: the HTTP status, the body's
// code and google.rpc.Code name, and the ErrorInfo reason ("" for none).
func wantStatus(t *testing.T, rep reply, status int, name, reason string) restStatus {
	t.Helper()
	var st restStatus
	if err := json.Unmarshal([]byte(rep.body), &st); err != nil {
		t.Fatalf("answer %d %s is not google.rpc.Status: %v", rep.status, rep.body, err)
	}
	if rep.status != status || st.Error.Code != status || st.Error.Status != name || rep.header.Get("Content-Type") != a2a.MediaTypeA2AJSON {
		t.Fatalf("answer = %d %q %s, want %d %s as %s", rep.status, rep.header.Get("Content-Type"), rep.body, status, name, a2a.MediaTypeA2AJSON)
	}
	switch {
	case reason == "" && len(st.Error.Details) != 0:
		t.Errorf("details = %+v, want none", st.Error.Details)
	case reason != "" && (len(st.Error.Details) != 1 || st.Error.Details[0].Reason != reason ||
		st.Error.Details[0].Domain != a2a.DomainA2A || st.Error.Details[0].Type != a2a.ErrorInfoType):
		t.Errorf("details = %+v, want one ErrorInfo %s in %s", st.Error.Details, reason, a2a.DomainA2A)
	}
	return st
}

// decodeOK decodes a 200 HTTP+JSON answer into v.
func decodeOK(t *testing.T, rep reply, v any) {
	t.Helper()
	if rep.status != http.StatusOK || rep.header.Get("Content-Type") != a2a.MediaTypeA2AJSON {
		t.Fatalf("answer = %d %q %s, want 200 %s", rep.status, rep.header.Get("Content-Type"), rep.body, a2a.MediaTypeA2AJSON)
	}
	if err := json.Unmarshal([]byte(rep.body), v); err != nil {
		t.Fatalf("answer %s: %v", rep.body, err)
	}
}

// TestRESTBinding is the HTTP+JSON binding (A2A §11) on the JSON-RPC door's
// port: each route answers what its JSON-RPC method does, unwrapped, and
// errors are google.rpc.Status with A2A §5.4's HTTP status.
func TestRESTBinding(t *testing.T) {
	td := startDoor(t, opts{})
	var sent a2a.SendMessageResponse
	decodeOK(t, td.do(http.MethodPost, RouteSendMessage, "", restBody("hello", false)), &sent)
	if sent.Task == nil || sent.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("message:send = %+v, want a COMPLETED task", sent)
	}
	id := string(sent.Task.ID)

	var got a2a.Task
	decodeOK(t, td.do(http.MethodGet, "/tasks/"+id+"?historyLength=1", "", ""), &got)
	if got.ID != sent.Task.ID || len(got.History) != 1 || a2a.Text(got.History[0].Parts) != "hello" || got.History[0].Role != a2a.RoleAgent {
		t.Errorf("GET /tasks/{id}?historyLength=1 = %+v, want the task with its last message, the agent's", got)
	}
	wantStatus(t, td.do(http.MethodGet, "/tasks/"+id+"?historyLength=x", "", ""), 400, "INVALID_ARGUMENT", "")
	wantStatus(t, td.do(http.MethodGet, "/tasks/tsk_none", "", ""), 404, "NOT_FOUND", "TASK_NOT_FOUND")

	var list a2a.ListTasksResponse
	decodeOK(t, td.do(http.MethodGet, RouteTasks+"?pageSize=10&status=TASK_STATE_COMPLETED&includeArtifacts=true", "", ""), &list)
	if len(list.Tasks) != 1 || list.Tasks[0].ID != sent.Task.ID || len(list.Tasks[0].Artifacts) == 0 {
		t.Errorf("GET /tasks = %+v, want the one task with its artifacts", list)
	}
	wantStatus(t, td.do(http.MethodGet, RouteTasks+"?pageSize=1000", "", ""), 400, "INVALID_ARGUMENT", "")
	wantStatus(t, td.do(http.MethodGet, RouteTasks+"?pageSize=1&pageSize=2", "", ""), 400, "INVALID_ARGUMENT", "")

	// Cancel: a live task answers CANCELED; an ended one is 400.
	var held a2a.SendMessageResponse
	decodeOK(t, td.do(http.MethodPost, RouteSendMessage, "", restBody("hold", true)), &held)
	var canceled a2a.Task
	decodeOK(t, td.do(http.MethodPost, "/tasks/"+string(held.Task.ID)+":cancel", "", ""), &canceled)
	if canceled.Status.State != a2a.TaskStateCanceled {
		t.Errorf(":cancel = %s, want CANCELED", canceled.Status.State)
	}
	wantStatus(t, td.do(http.MethodPost, "/tasks/"+id+":cancel", "", ""), 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE")
	wantStatus(t, td.do(http.MethodPost, "/tasks/tsk_none:cancel", "", ""), 404, "NOT_FOUND", "TASK_NOT_FOUND")

	// Subscribing to an ended task is 400, for GET and POST alike.
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		wantStatus(t, td.do(m, "/tasks/"+id+":subscribe", "", ""), 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")
	}

	// A public door has no extended card; push configs are not served.
	wantStatus(t, td.do(http.MethodGet, RouteExtendedAgentCard, "", ""), 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")

	// ORD-1 still holds: the version, the media type, the body's JSON.
	wantStatus(t, td.do(http.MethodGet, "/tasks/"+id, "", "", "A2A-Version:"), 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")
	wantStatus(t, td.do(http.MethodPost, RouteSendMessage, "", restBody("x", false), "Content-Type:", "Content-Type: text/plain"),
		400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED")
	wantStatus(t, td.do(http.MethodPost, RouteSendMessage, "", "{", "Content-Type:", "Content-Type: application/a2a+json"), 400, "INVALID_ARGUMENT", "")
	wantStatus(t, td.do(http.MethodPost, RouteSendMessage, "", `{"message":{}}`), 400, "INVALID_ARGUMENT", "")
	wantRefusal(t, td.do(http.MethodDelete, "/tasks/"+id, "", ""), 404, "", "")
	for _, c := range [][2]string{{"POST", ""}, {"GET", ""}, {"GET", "/c1"}, {"DELETE", "/c1"}} {
		wantStatus(t, td.do(c[0], "/tasks/"+id+"/pushNotificationConfigs"+c[1], "", ""), 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED")
	}
}

// TestRESTStream is message:stream and :subscribe (A2A §11.7): each event's
// data is the StreamResponse itself, no JSON-RPC envelope, and the stream
// ends after the task's final status.
func TestRESTStream(t *testing.T) {
	td := startDoor(t, opts{})
	resp, err := http.DefaultClient.Do(td.request(http.MethodPost, RouteSendStreamingMessage, "", restBody("streamed", false)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("message:stream = %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var kinds []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev a2a.StreamResponse
		if err := json.Unmarshal([]byte(data), &ev); err != nil || strings.Contains(data, `"jsonrpc"`) {
			t.Fatalf("event %s is not a bare StreamResponse: %v", data, err)
		}
		switch {
		case ev.Task != nil:
			kinds = append(kinds, "task")
		case ev.ArtifactUpdate != nil:
			kinds = append(kinds, "artifact")
		case ev.StatusUpdate != nil:
			kinds = append(kinds, string(ev.StatusUpdate.Status.State))
		}
	}
	if n := len(kinds); n < 2 || kinds[0] != "task" || kinds[n-1] != string(a2a.TaskStateCompleted) {
		t.Errorf("events = %v, want the task first and COMPLETED last", kinds)
	}

	// Subscribing to a live task streams it; a held task ends when canceled.
	var held a2a.SendMessageResponse
	decodeOK(t, td.do(http.MethodPost, RouteSendMessage, "", restBody("hold", true)), &held)
	sub, err := http.DefaultClient.Do(td.request(http.MethodGet, "/tasks/"+string(held.Task.ID)+":subscribe", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Body.Close()
	sc = bufio.NewScanner(sub.Body)
	first := true
	var last a2a.StreamResponse
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if err := json.Unmarshal([]byte(data), &last); err != nil {
			t.Fatalf("event %s: %v", data, err)
		}
		if first {
			first = false
			if last.Task == nil || last.Task.ID != held.Task.ID {
				t.Fatalf("first event %s, want the task", data)
			}
			td.do(http.MethodPost, "/tasks/"+string(held.Task.ID)+":cancel", "", "")
		}
	}
	if last.StatusUpdate == nil || last.StatusUpdate.Status.State != a2a.TaskStateCanceled {
		t.Errorf("last event = %+v, want CANCELED", last)
	}
}

// TestRESTAuth is ORD-1 steps 2 and 11 on the HTTP+JSON routes: no token is
// 401, a scoped credential reaches only its methods, and the extended card
// is served on an authenticated door.
func TestRESTAuth(t *testing.T) {
	td := startDoor(t, opts{auth: true, declared: []Credential{{Name: "reader", Scopes: []string{a2a.MethodGetTask}}}})
	wantRefusal(t, td.do(http.MethodGet, "/tasks/tsk_none", "", ""), 401, `Bearer realm="coder"`, "auth_unauthenticated")
	wantStatus(t, td.do(http.MethodGet, "/tasks/tsk_none", td.tokens["reader"], ""), 404, "NOT_FOUND", "TASK_NOT_FOUND")
	rep := td.do(http.MethodGet, RouteTasks, td.tokens["reader"], "")
	if rep.status != 403 || !strings.Contains(rep.body, "insufficient_scope") {
		t.Errorf("GET /tasks with a GetTask-only credential = %d %s, want 403 insufficient_scope", rep.status, rep.body)
	}
	var card map[string]any
	decodeOK(t, td.do(http.MethodGet, RouteExtendedAgentCard, td.tokens["operator"], ""), &card)
	if card["name"] != "coder" {
		t.Errorf("extended card = %v", card)
	}
}
