package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/door"
)

// The HTTP+JSON routes' real answers validate against the document (A2A
// §11): each route is called for a success and its errors, and every
// documented route is reached at least once.
func TestRESTAnswersValidate(t *testing.T) {
	t.Parallel()
	d := loadDocument(t)
	for _, auth := range []bool{false, true} {
		td := newDoor(t, doorOpts{auth: auth})
		token := td.tokens["operator"]
		reached := map[string]bool{}
		call := func(what, method, route, path string, body any, hdr ...string) answer {
			t.Helper()
			var b []byte
			if body != nil {
				b, _ = json.Marshal(body)
			}
			a := td.do(t, method, path, token, b, hdr...)
			d.exchange(t, what, method, route, a.status, a.header, a.body)
			reached[strings.ToUpper(method)+" "+route] = true
			return a
		}
		task := func(a answer) a2a.Task {
			t.Helper()
			var r a2a.SendMessageResponse
			if err := json.Unmarshal(a.body, &r); err != nil || r.Task == nil {
				t.Fatalf("answer %d %s holds no task", a.status, a.body)
			}
			return *r.Task
		}
		done := task(call("message:send", "POST", door.RouteSendMessage, door.RouteSendMessage, send("ok", false)))
		hold := task(call("message:send held", "POST", door.RouteSendMessage, door.RouteSendMessage, send("hold", true)))
		call("message:send malformed", "POST", door.RouteSendMessage, door.RouteSendMessage, map[string]any{"message": map[string]any{}})
		call("message:send text/plain", "POST", door.RouteSendMessage, door.RouteSendMessage, send("x", true), "Content-Type: text/plain")
		a := call("message:stream", "POST", door.RouteSendStreamingMessage, door.RouteSendStreamingMessage, send("ok", false))
		ref := refOf(d.at("paths", door.RouteSendStreamingMessage, "post", "responses", "200", "content", "text/event-stream", "x-event-data"))
		for _, ev := range sseEvents(a.body) {
			d.validate(t, "message:stream event", ref, []byte(ev["data"]))
		}
		call("GET /tasks", "GET", door.RouteTasks, door.RouteTasks+"?pageSize=5&includeArtifacts=true", nil)
		call("GET /tasks bad pageSize", "GET", door.RouteTasks, door.RouteTasks+"?pageSize=0", nil)
		call("GET /tasks/{id}", "GET", door.RouteTask, "/tasks/"+string(done.ID)+"?historyLength=3", nil)
		call("GET /tasks/{id} unknown", "GET", door.RouteTask, "/tasks/tsk_none", nil)
		call("GET /tasks/{id} without a version", "GET", door.RouteTask, "/tasks/"+string(done.ID), nil, "A2A-Version:")
		call(":cancel", "POST", door.RouteCancelTask, "/tasks/"+string(hold.ID)+":cancel", nil)
		call(":cancel ended", "POST", door.RouteCancelTask, "/tasks/"+string(done.ID)+":cancel", nil)
		call("GET :subscribe ended", "GET", door.RouteSubscribeToTask, "/tasks/"+string(done.ID)+":subscribe", nil)
		call("POST :subscribe unknown", "POST", door.RouteSubscribeToTask, "/tasks/tsk_none:subscribe", nil)
		call("extendedAgentCard", "GET", door.RouteExtendedAgentCard, door.RouteExtendedAgentCard, nil)
		for _, m := range []string{"POST", "GET"} {
			call(m+" pushNotificationConfigs", m, door.RoutePushConfigs, "/tasks/"+string(done.ID)+"/pushNotificationConfigs", nil)
		}
		for _, m := range []string{"GET", "DELETE"} {
			call(m+" pushNotificationConfig", m, door.RoutePushConfig, "/tasks/"+string(done.ID)+"/pushNotificationConfigs/c1", nil)
		}
		if auth {
			token = ""
			call("GET /tasks without a token", "GET", door.RouteTasks, door.RouteTasks, nil)
		}
		for path, ops := range d.at("paths").(map[string]any) {
			for method := range ops.(map[string]any) {
				route := strings.ToUpper(method) + " " + path
				if strings.HasPrefix(path, "/tasks") || strings.HasPrefix(path, "/message") || path == door.RouteExtendedAgentCard {
					if !reached[route] {
						t.Errorf("authenticated %v: %s is documented but not walked", auth, route)
					}
				}
			}
		}
	}
}
