package door

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
)

func idCall(method, id string) string {
	return `{"jsonrpc":"2.0","id":9,"method":"` + method + `","params":{"id":"` + id + `"}}`
}

// TestTaskParams_METHGT1_METHCT1_METHST1 pins the id requirement and the
// not-found answer of the three id methods.
func TestTaskParams_METHGT1_METHCT1_METHST1(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	var cases []rpcCase
	for _, m := range []string{"GetTask", "CancelTask", "SubscribeToTask"} {
		cases = append(cases,
			rpcCase{m + " no params", `{"jsonrpc":"2.0","id":9,"method":"` + m + `"}`, nil},
			rpcCase{m + " empty id", idCall(m, ""), nil},
			rpcCase{m + " id number", `{"jsonrpc":"2.0","id":9,"method":"` + m + `","params":{"id":5}}`, nil},
			rpcCase{m + " unknown", idCall(m, "tsk_0199c4e2f1b7712a9d3e4f5061728394"), nil},
		)
	}
	cases = append(cases,
		rpcCase{"GetTask historyLength fraction", `{"jsonrpc":"2.0","id":9,"method":"GetTask","params":{"id":"t","historyLength":1.5}}`, nil},
		rpcCase{"GetTask historyLength negative", `{"jsonrpc":"2.0","id":9,"method":"GetTask","params":{"id":"t","historyLength":-1}}`, nil},
	)
	runRPCCases(t, td, "", "rpc_task_params", cases)
}

// TestCancel_METHCT1: a live task is CANCELED at once; an ended one is
// -32002 and unchanged.
func TestCancel_METHCT1(t *testing.T) {
	td := startDoor(t, opts{})
	held := td.call("", sendBody("hold", "")).task(t, true)
	got := td.call("", idCall("CancelTask", string(held.ID))).task(t, false)
	if got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask = %+v, want CANCELED", got)
	}
	read := td.call("", idCall("GetTask", string(held.ID))).task(t, false)
	if read.Status.State != a2a.TaskStateCanceled {
		t.Errorf("GetTask after cancel = %s", read.Status.State)
	}
	again := td.call("", idCall("CancelTask", string(held.ID)))
	if again.Error == nil || again.Error.Code != -32002 ||
		again.Error.Message != "Task cannot be canceled: it is already TASK_STATE_CANCELED" ||
		again.Error.Data[0].Metadata["taskId"] != string(held.ID) || again.Error.Data[0].Reason != "TASK_NOT_CANCELABLE" {
		t.Errorf("second cancel = %+v, want -32002", again.Error)
	}
	// RPC-4's example, byte for byte: ErrorInfo metadata names taskId, then state.
	raw := td.post("", `{"jsonrpc":"2.0","id":3,"method":"CancelTask","params":{"id":"`+string(held.ID)+`"}}`)
	want := `{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Task cannot be canceled: it is already TASK_STATE_CANCELED",` +
		`"data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org",` +
		`"metadata":{"taskId":"` + string(held.ID) + `","state":"TASK_STATE_CANCELED"}}]}}`
	if raw.body != want {
		t.Errorf("second cancel body = %s\nwant                 %s", raw.body, want)
	}
}

// TestListTasks_METHLT1_METHLT2 lists, filters and pages, and refuses bad
// params with -32602.
func TestListTasks_METHLT1_METHLT2(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	var ids []a2a.TaskID
	for range 3 {
		ids = append(ids, td.call("", sendBody("x", `,"contextId":"ctx-a"`)).task(t, true).ID)
	}
	td.call("", sendBody("y", `,"contextId":"ctx-b"`)).task(t, true)
	list := func(params string) a2a.ListTasksResponse {
		t.Helper()
		r := td.call("", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":`+params+`}`)
		if r.Error != nil {
			t.Fatalf("ListTasks %s = %+v", params, r.Error)
		}
		var resp a2a.ListTasksResponse
		if err := json.Unmarshal(r.Result, &resp); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(r.Result), `"nextPageToken":`) {
			t.Errorf("nextPageToken missing from %s", r.Result)
		}
		return resp
	}
	all := list(`{}`)
	if all.TotalSize != 4 || all.PageSize != 50 || len(all.Tasks) != 4 || all.NextPageToken != "" {
		t.Errorf("ListTasks {} = %+v", all)
	}
	page := list(`{"contextId":"ctx-a","pageSize":2,"status":"TASK_STATE_SUBMITTED"}`)
	if page.TotalSize != 3 || len(page.Tasks) != 2 || page.NextPageToken == "" {
		t.Fatalf("first page = %+v", page)
	}
	rest := list(`{"contextId":"ctx-a","pageSize":2,"status":"TASK_STATE_SUBMITTED","pageToken":"` + page.NextPageToken + `"}`)
	if len(rest.Tasks) != 1 || rest.NextPageToken != "" {
		t.Fatalf("second page = %+v", rest)
	}
	got := []a2a.TaskID{page.Tasks[0].ID, page.Tasks[1].ID, rest.Tasks[0].ID}
	want := slices.Clone(ids)
	slices.Reverse(want)
	if !slices.Equal(got, want) {
		t.Errorf("paged ids = %v, want newest first %v", got, want)
	}
	runRPCCases(t, td, "", "rpc_list_params", []rpcCase{
		{"pageSize 0", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":0}}`, nil},
		{"pageSize 101", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":101}}`, nil},
		{"pageSize string", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":"2"}}`, nil},
		{"unknown state", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"status":"done"}}`, nil},
		{"status number", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"status":3}}`, nil},
		{"foreign page token", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageToken":"abc"}}`, nil},
		{"bad timestamp", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"statusTimestampAfter":"yesterday"}}`, nil},
		{"historyLength negative", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"historyLength":-2}}`, nil},
		{"includeArtifacts string", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"includeArtifacts":"true"}}`, nil},
		{"contextId number", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"contextId":1}}`, nil},
	})
}

// TestSessionStop_METHSTOP1 cancels every live task once, sorted; a second
// call cancels nothing; the door keeps serving.
func TestSessionStop_METHSTOP1(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	var ids []string
	for range 3 {
		ids = append(ids, string(td.call("", sendBody("hold", "")).task(t, true).ID))
	}
	slices.Sort(ids)
	stop := `{"jsonrpc":"2.0","id":1,"method":"session/stop","params":{"ignored":true}}`
	r := td.call("", stop)
	want := `{"session_id":"` + testSession + `","canceled":["` + strings.Join(ids, `","`) + `"],"residue":[]}`
	if string(r.Result) != want {
		t.Errorf("session/stop = %s, want %s", r.Result, want)
	}
	r = td.call("", stop)
	if want := `{"session_id":"` + testSession + `","canceled":[],"residue":[]}`; string(r.Result) != want {
		t.Errorf("second session/stop = %s, want %s", r.Result, want)
	}
}

// TestCard_DOOR3_CARD1: the public card, no token and no version needed;
// revalidated on each use (no-cache, and A2A §8.6.1's max-age) against its
// ETag, a 304 when unchanged.
func TestCard_DOOR3_CARD1(t *testing.T) {
	td := startDoor(t, opts{auth: true})
	rep := td.do(http.MethodGet, a2aCardPath, "", "", "A2A-Version:", "Content-Type:")
	want, err := agentcard.Build(agentcard.Config{Name: "coder", Version: "1.2.0", URL: td.url,
		Acceptance: agentcard.AcceptQueue, Authenticated: true, SessionID: testSession})
	if err != nil {
		t.Fatal(err)
	}
	if rep.status != 200 || rep.body != string(want.Public) {
		t.Fatalf("card = %d %s, want %s", rep.status, rep.body, want.Public)
	}
	if rep.header.Get("Content-Type") != "application/json" || rep.header.Get("Cache-Control") != "no-cache, max-age=0" || rep.header.Get("ETag") == "" {
		t.Errorf("card headers = %v", rep.header)
	}
	again := td.do(http.MethodGet, a2aCardPath, "", "", "If-None-Match: "+rep.header.Get("ETag"))
	if again.status != http.StatusNotModified {
		t.Errorf("conditional card = %d, want 304", again.status)
	}
	r := td.call(td.tokens[OperatorCredential], `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{"tenant":"x"}}`)
	if r.Error != nil || string(r.Result) != string(want.Extended) {
		t.Errorf("GetExtendedAgentCard = %s %+v, want %s", r.Result, r.Error, want.Extended)
	}
}

// TestMetrics_GO6 reads /metrics without a token and finds the door's series
// with aggregate labels only.
func TestMetrics_GO6(t *testing.T) {
	td := startDoor(t, opts{auth: true, noExecutor: true})
	op := td.tokens[OperatorCredential]
	td.call(op, idCall("GetTask", "tsk_secret"))
	td.post("", getTask)
	td.call(op, sendBody("hold", ""))
	// A request leaves the inflight gauge just after its answer is on the
	// wire (answers and refusals flush before their handler returns), so the
	// gauge may still count the last one: read until only this read is in
	// flight, as it must be once those handlers return. A scrape gathers its
	// metrics one by one, so the counters of the scrape that sees the gauge
	// drop may predate the drop; a request is counted before it leaves the
	// gauge, so the next scrape's counters hold every one of them.
	var rep reply
	for range 1000 {
		if rep = td.do(http.MethodGet, "/metrics", "", ""); strings.Contains(rep.body, "mur_door_inflight_requests 1\n") {
			break
		}
	}
	rep = td.do(http.MethodGet, "/metrics", "", "")
	if rep.status != 200 {
		t.Fatalf("metrics = %d", rep.status)
	}
	for _, want := range []string{
		`mur_door_requests_total{method="GetTask",outcome="error"} 1`,
		`mur_door_requests_total{method="none",outcome="refused"} 1`,
		`mur_door_requests_total{method="SendMessage",outcome="ok"} 1`,
		`mur_door_refusals_total{code="-32001"} 1`,
		`mur_door_refusals_total{code="unauthenticated"} 1`,
		`mur_door_tasks{state="TASK_STATE_SUBMITTED"} 1`,
		`mur_door_tasks{state="TASK_STATE_COMPLETED"} 0`,
		`mur_door_sse_connections{kind="stream/watch"} 0`,
		`mur_door_inflight_requests 1`,
		`mur_door_request_duration_seconds_count{method="GetTask"} 1`,
	} {
		if !strings.Contains(rep.body, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
	for _, secret := range []string{"tsk_secret", op, "coder", testSession} {
		if strings.Contains(rep.body, secret) {
			t.Errorf("metrics carry %q", secret)
		}
	}
}
