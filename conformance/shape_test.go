package conformance

import (
	"strings"
	"testing"
)

func TestShapes_TASK1(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		spec spec
		in   string
		want string // "" for valid, else a fragment of the error
	}{
		{"task", taskSpec, `{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-01-01T00:00:00.000Z"}}`, ""},
		{"task without status", taskSpec, `{"id":"t"}`, `lacks "status"`},
		{"task with a 0.3 state", taskSpec, `{"id":"t","status":{"state":"working"}}`, "is not one of"},
		{"task with a snake_case key", taskSpec, `{"id":"t","context_id":"c","status":{"state":"TASK_STATE_WORKING"}}`, `key "context_id"`},
		{"bad timestamp", taskSpec, `{"id":"t","status":{"state":"TASK_STATE_WORKING","timestamp":"yesterday"}}`, "RFC 3339"},
		{"part of two kinds", partSpec, `{"text":"a","url":"u"}`, "exactly one of"},
		{"part of none", partSpec, `{"mediaType":"text/plain"}`, "exactly one of"},
		{"data null is a kind", partSpec, `{"data":null}`, ""},
		{"stream response", streamResponseSpec, `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}`, ""},
		{"stream response of two", streamResponseSpec, `{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}},"message":{"messageId":"m","role":"ROLE_AGENT","parts":[]}}`, "exactly one of"},
		{"list page size fraction", listResponseSpec, `{"tasks":[],"nextPageToken":"","pageSize":1.5,"totalSize":0}`, "integer"},
		{"artifact without parts", artifactSpec, `{"artifactId":"a","parts":[]}`, "is empty"},
		{"card security scheme of two", securitySchemeSpec, `{"httpAuthSecurityScheme":{"scheme":"Bearer"},"mtlsSecurityScheme":{}}`, "exactly one of"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := validate([]byte(tc.in), tc.spec, "v")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("validate(%s) error = %v, want nil", tc.in, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("validate(%s) error = %v, want one containing %q", tc.in, err, tc.want)
			}
		})
	}
}

func TestInOrder(t *testing.T) {
	t.Parallel()
	order := []string{"a", "b", "c"}
	for _, tc := range []struct {
		got  []string
		want bool
	}{{[]string{"a", "c"}, true}, {nil, true}, {[]string{"c", "a"}, false}, {[]string{"a", "a"}, false}, {[]string{"x"}, false}} {
		if got := inOrder(tc.got, order); got != tc.want {
			t.Errorf("inOrder(%v) = %v, want %v", tc.got, got, tc.want)
		}
	}
}

// A title never holds ": ", which separates it from the reason on FAIL and
// SKIP lines (door.md GO-7).
func TestTitles_GO7(t *testing.T) {
	t.Parallel()
	for _, c := range checks() {
		if strings.Contains(c.title, ": ") || c.title == "" {
			t.Errorf("check %s title %q is empty or holds \": \"", c.id, c.title)
		}
	}
}

// The suite reads whatever a door writes without panicking.
func FuzzValidateAndParse(f *testing.F) {
	f.Add([]byte(`{"name":"x","skills":[{"id":"a"}],"capabilities":{"extensions":[{"uri":"u"}]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"m","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo"}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, sp := range []spec{cardSpec, taskSpec, streamResponseSpec, listResponseSpec} {
			_ = validate(b, sp, "v")
		}
		a, err := parseAnswer(&exchange{status: 200, header: map[string][]string{"Content-Type": {"application/json"}}, body: b})
		if err == nil && a.err != nil {
			_, _ = errorInfo(a.err.Data)
		}
	})
}
