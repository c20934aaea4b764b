package spawn

import (
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/wire"
)

// TestHandle_DLG3_DLG6: MURMUR_SPAWNER is compact JSON in DLG-3's order and
// reads back; what is no handle names why, never quoting the value.
func TestHandle_DLG3_DLG6(t *testing.T) {
	t.Parallel()
	h := Handle{SessionID: "ses_0123456789abcdef0123456789abcdef", ContextID: "ctx_1", DelegationID: "dlg_0123456789abcdef0123456789abcdef",
		URL: "http://127.0.0.1:4100", Trust: "untrusted"}
	const want = `{"session_id":"ses_0123456789abcdef0123456789abcdef","context_id":"ctx_1","delegation_id":"dlg_0123456789abcdef0123456789abcdef","url":"http://127.0.0.1:4100","trust":"untrusted"}`
	if h.String() != want {
		t.Errorf("String() = %s", h.String())
	}
	if got, why := parseHandle(want); why != "" || got != h {
		t.Errorf("parseHandle = %+v, %q", got, why)
	}
	bad := map[string]string{
		"": "it is not one JSON object with session_id, context_id, delegation_id, url and trust",
		strings.Replace(want, `"trust"`, `"extra":1,"trust"`, 1): "it is not one JSON object with session_id, context_id, delegation_id, url and trust",
		want + want: "it is not one JSON object with session_id, context_id, delegation_id, url and trust",
		strings.Replace(want, "ses_0", "ses_X", 1):        "its session_id is not a session id",
		strings.Replace(want, "dlg_0", "dlg_", 1):         "its delegation_id is not a delegation id",
		strings.Replace(want, "untrusted", "maybe", 1):    "its trust is neither trusted nor untrusted",
		strings.Replace(want, "http://", "https://", 1):   "its url is not a loopback http://host:port door",
		strings.Replace(want, ":4100", "", 1):             "its url is not a loopback http://host:port door",
		strings.Replace(want, "4100", "4100/x", 1):        "its url is not a loopback http://host:port door",
		strings.Replace(want, "127.0.0.1", "10.0.0.1", 1): "its url is not a loopback http://host:port door",
	}
	for v, w := range bad {
		if _, why := parseHandle(v); why != w {
			t.Errorf("parseHandle(%s) = %q, want %q", v, why, w)
		}
	}
}

// TestHello_DLG6: the lifeline's one line names its delegation, the
// child's depth and both tokens.
func TestHello_DLG6(t *testing.T) {
	t.Parallel()
	line := wire.SpawnerHello{DelegationID: "dlg_a", Depth: 2, CompletionToken: "c", DoorToken: "d"}.Line()
	if got, why := readHello(line, "dlg_a"); why != "" || got.Depth != 2 || got.CompletionToken != "c" || got.DoorToken != "d" {
		t.Errorf("readHello = %+v, %q", got, why)
	}
	for _, c := range []struct{ line, why string }{
		{"nonsense\n", "its first line is not the spawner's"},
		{`{"type":"other"}` + "\n", "its first line is not the spawner's"},
		{string(line), ""},
		{strings.Replace(string(line), `"depth":2`, `"depth":4`, 1), "its first line gives depth 4, outside 1–3"},
		{strings.Replace(string(line), `"door_token":"d"`, `"door_token":""`, 1), "its first line carries no tokens"},
	} {
		if _, why := readHello([]byte(c.line), "dlg_a"); why != c.why {
			t.Errorf("readHello(%q) = %q, want %q", c.line, why, c.why)
		}
	}
	if _, why := readHello(line, "dlg_b"); why != "its first line names another delegation than MURMUR_SPAWNER" {
		t.Errorf("another delegation: %q", why)
	}
}

// TestCompletionMessage_DLG7: the posted message carries the outcome and
// where the result is, never the delivery fields; detail is cut at 2000
// bytes on a UTF-8 boundary.
func TestCompletionMessage_DLG7(t *testing.T) {
	t.Parallel()
	c := wire.Completion{DelegationID: "dlg_x", CapsuleName: "w", CapsuleVersion: "0.1.0", SessionID: "ses_y", Status: "ok",
		ResultPath: ".murmur/ses_y/result.txt", Workdir: "/wd", DurationMS: 12, ReportedBy: "child", Delivered: true, DeliveryError: "e"}
	const want = `{"delegation_id":"dlg_x","capsule_name":"w","capsule_version":"0.1.0","session_id":"ses_y","status":"ok","result_path":".murmur/ses_y/result.txt","workdir":"/wd","duration_ms":12}`
	if got := c.Message(); got != want {
		t.Errorf("message = %s\nwant      %s", got, want)
	}
	long := strings.Repeat("é", wire.MaxDetail) // 2 bytes a rune
	if got := cutDetail(long); len(got) != wire.MaxDetail || !strings.HasPrefix(long, got) {
		t.Errorf("cutDetail kept %d bytes", len(got))
	}
	if got := cutDetail("a" + long); len(got) != wire.MaxDetail-1 {
		t.Errorf("cutDetail on a boundary kept %d bytes, want %d", len(got), wire.MaxDetail-1)
	}
}
