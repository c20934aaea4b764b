package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/conformance"
)

// Each fake wraps mur's door so that it breaks one rule; the suite must fail
// the check that guards the rule. This keeps the suite's checks honest: a
// check that cannot fail would pass them all.

// rewriteCard edits the public card's JSON.
func rewriteCard(edit func(card map[string]any)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != a2a.WellKnownCardPath {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var card map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &card); err != nil {
				panic(err)
			}
			edit(card)
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(card)
		})
	}
}

// rpcMethod reads a request body's JSON-RPC method and restores the body.
func rpcMethod(r *http.Request) (method string, hasID bool) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	var req map[string]json.RawMessage
	_ = json.Unmarshal(b, &req)
	_ = json.Unmarshal(req["method"], &method)
	_, hasID = req["id"]
	return method, hasID
}

// rewriteAnswer edits the JSON answers to one method.
func rewriteAnswer(method string, edit func(body []byte) []byte) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if m, _ := rpcMethod(r); m != method {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.Write(edit(rec.Body.Bytes()))
		})
	}
}

// eventLines prefixes every SSE data line of A2A streams with an event line.
type eventLines struct{ http.ResponseWriter }

func (e eventLines) Write(b []byte) (int, error) {
	_, err := e.ResponseWriter.Write(bytes.ReplaceAll(b, []byte("data: "), []byte("event: message\ndata: ")))
	return len(b), err
}

func (e eventLines) Flush() { e.ResponseWriter.(http.Flusher).Flush() }

func TestSuiteCatchesBrokenDoors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		wrap func(http.Handler) http.Handler
		fail []string // checks that must fail
	}{
		{"card with no skills", rewriteCard(func(c map[string]any) { c["skills"] = []any{} }), []string{"card.skills"}},
		{"card with an unknown key", rewriteCard(func(c map[string]any) { c["agentName"] = "x" }), []string{"card.shape"}},
		{"card with a snake_case key", rewriteCard(func(c map[string]any) {
			c["default_input_modes"] = c["defaultInputModes"]
		}), []string{"card.shape"}},
		{"card without JSONRPC 1.0", rewriteCard(func(c map[string]any) {
			c["supportedInterfaces"].([]any)[0].(map[string]any)["protocolVersion"] = "0.3"
		}), []string{"card.interface"}},
		{"version header not read", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.Header.Set(a2a.HeaderVersion, "1.0")
				next.ServeHTTP(w, r)
			})
		}, []string{"rpc.version-absent", "rpc.version-wrong"}},
		{"notifications answered", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if m, hasID := rpcMethod(r); m != "" && !hasID {
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"jsonrpc":"2.0","id":null,"result":{}}`)
					return
				}
				next.ServeHTTP(w, r)
			})
		}, []string{"rpc.notification"}},
		{"errors without ErrorInfo", rewriteAnswer(a2a.MethodGetTask, func(b []byte) []byte {
			var m map[string]map[string]any
			_ = json.Unmarshal(b, &m)
			delete(m["error"], "data")
			out, _ := json.Marshal(m)
			return out
		}), []string{"get.unknown", "rpc.version-accepted", "auth.public"}},
		{"string ids answered as numbers", rewriteAnswer(a2a.MethodGetTask, func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"id":"conformance-id"`, `"id":1`, 1))
		}), []string{"rpc.id-echo"}},
		{"event lines on A2A streams", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if m, _ := rpcMethod(r); m == a2a.MethodSendStreamingMessage {
					w = eventLines{w}
				}
				next.ServeHTTP(w, r)
			})
		}, []string{"stream.send"}},
		{"peer consent skipped", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.Header.Del(a2a.HeaderTaskOrigin)
				next.ServeHTTP(w, r)
			})
		}, []string{"murmur.peer-consent"}},
		{"canceled task reads WORKING", rewriteAnswer(a2a.MethodCancelTask, func(b []byte) []byte {
			return bytes.Replace(b, []byte("TASK_STATE_CANCELED"), []byte("TASK_STATE_WORKING"), 1)
		}), []string{"cancel.live"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := startDoor(t, doorOpts{wrap: tc.wrap})
			got := statuses(conformance.Run(context.Background(), conformance.Config{URL: d.url, SlowTaskText: slowText}))
			for _, id := range tc.fail {
				if got[id] != conformance.Fail {
					t.Errorf("%s = %s, want FAIL", id, got[id])
				}
			}
		})
	}
}

// A door without the murmur door extension is judged by A2A alone: the
// murmur checks skip and mur's door still passes the rest.
func TestSuiteJudgesOtherVendorsByA2A(t *testing.T) {
	t.Parallel()
	d := startDoor(t, doorOpts{wrap: rewriteCard(func(c map[string]any) {
		caps := c["capabilities"].(map[string]any)
		caps["extensions"] = []any{}
	})})
	for _, r := range conformance.Run(context.Background(), conformance.Config{URL: d.url, SlowTaskText: slowText}) {
		if r.Status == conformance.Fail {
			t.Errorf("%s", r)
		}
		murmurOnly := strings.HasPrefix(r.ID, "murmur.") || r.ID == "http.too-large" || r.ID == "http.metrics" ||
			r.ID == "rpc.batch" || r.ID == "send.content-type" || r.ID == "auth.public"
		if murmurOnly && r.Status != conformance.Skip {
			t.Errorf("%s, want SKIP on a door without the murmur door extension", r)
		}
	}
}

// murmur.session-stop judges what a door's tasks read after the call, not only
// the answer's shape: a door whose session/stop answers "canceled": [] while
// a task stays live fails it, with no SlowTaskText configured (the check once
// passed such a door). mur's own door, holding the same live task, passes.
func TestSessionStopJudgesLiveTasks_METHSTOP1(t *testing.T) {
	t.Parallel()
	var sessionID string // the door's, read from its card before the run
	stopCancelsNothing := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(b, &req) != nil || req.Method != a2a.MethodSessionStop {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"session_id":"`+sessionID+`","canceled":[],"residue":[]}}`)
		})
	}
	for _, tc := range []struct {
		name string
		wrap func(http.Handler) http.Handler
		want conformance.Status
	}{
		{"a stop that cancels nothing", stopCancelsNothing, conformance.Fail},
		{"mur's door", nil, conformance.Pass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDoor(t, doorOpts{wrap: tc.wrap})
			sessionID = cardSessionID(t, d.url)
			held := post(t, d.url, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"held",`+
				`"role":"ROLE_USER","parts":[{"text":"`+slowText+`"}]},"configuration":{"returnImmediately":true}}}`)
			if !strings.Contains(held, "TASK_STATE_SUBMITTED") && !strings.Contains(held, "TASK_STATE_WORKING") {
				t.Fatalf("the held task was answered %s", held)
			}
			var got conformance.Result
			for _, r := range conformance.Run(context.Background(), conformance.Config{URL: d.url}) {
				if r.ID == "murmur.session-stop" {
					got = r
				}
			}
			if got.Status != tc.want {
				t.Errorf("%s, want %s", got, tc.want)
			}
		})
	}
}

// cardSessionID reads the capsule extension's sessionId off a public card.
func cardSessionID(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + a2a.WellKnownCardPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var card a2a.AgentCard
	if err := json.NewDecoder(resp.Body).Decode(&card); err != nil {
		t.Fatal(err)
	}
	ext := card.Extension(a2a.ExtensionCapsule)
	if ext == nil {
		t.Fatal("the card has no capsule extension")
	}
	sid, _ := ext.Params["sessionId"].(string)
	return sid
}

// post sends one JSON-RPC request and returns the answer's body.
func post(t *testing.T, url, body string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(a2a.HeaderVersion, a2a.ProtocolVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
