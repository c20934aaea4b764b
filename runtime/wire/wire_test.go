package wire

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestLines: each line's bytes are exactly the documented shape (keys in
// field order, optional keys absent when empty, one '\n'), and its parse
// reads them back to the same value.
func TestLines(t *testing.T) {
	t.Parallel()
	ses := "ses_019a0000000070008000000000000001"
	tests := []struct {
		name  string
		line  []byte
		want  string
		parse func([]byte) (any, error)
		value any
	}{
		{"ready on a public door", Ready{Name: "hello", PID: 7, RecordsDir: "/r", SessionID: ses, URL: "http://127.0.0.1:1", Version: "1", Workdir: "/w"}.Line(),
			`{"name":"hello","pid":7,"records_dir":"/r","session_id":"` + ses + `","url":"http://127.0.0.1:1","version":"1","workdir":"/w"}`,
			func(b []byte) (any, error) { return ParseReady(b) },
			Ready{Name: "hello", PID: 7, RecordsDir: "/r", SessionID: ses, URL: "http://127.0.0.1:1", Version: "1", Workdir: "/w"}},
		{"ready of an authenticated member", Ready{Auth: "bearer", FormationID: "frm_1", Name: "w", PID: 1, SessionID: ses}.Line(),
			`{"auth":"bearer","formation_id":"frm_1","name":"w","pid":1,"records_dir":"","session_id":"` + ses + `","url":"","version":"","workdir":""}`,
			func(b []byte) (any, error) { return ParseReady(b) },
			Ready{Auth: "bearer", FormationID: "frm_1", Name: "w", PID: 1, SessionID: ses}},
		{"credentials", Credentials{FormationID: "frm_1", Member: "lead", VerifyKey: "k", Launcher: &Launcher{PID: 42, ProcessStart: "7"},
			Callees: []string{"worker"}, Tokens: map[string]string{"worker": "t"}}.Line(),
			`{"type":"credentials","formation_id":"frm_1","member":"lead","verify_key":"k","launcher":{"pid":42,"process_start":"7"},"callees":["worker"],"tokens":{"worker":"t"}}`,
			func(b []byte) (any, error) { return ParseCredentials(b) },
			Credentials{Type: TypeCredentials, FormationID: "frm_1", Member: "lead", VerifyKey: "k", Launcher: &Launcher{PID: 42, ProcessStart: "7"},
				Callees: []string{"worker"}, Tokens: map[string]string{"worker": "t"}}},
		{"credentials under cascade", Credentials{FormationID: "frm_1", Member: "lead", Launcher: &Launcher{PID: 1}, Callees: []string{}, Tokens: map[string]string{}, Cancel: CancelCascade}.Line(),
			`{"type":"credentials","formation_id":"frm_1","member":"lead","verify_key":"","launcher":{"pid":1,"process_start":""},"callees":[],"tokens":{},"cancel":"cascade"}`,
			func(b []byte) (any, error) { return ParseCredentials(b) },
			Credentials{Type: TypeCredentials, FormationID: "frm_1", Member: "lead", Launcher: &Launcher{PID: 1}, Callees: []string{}, Tokens: map[string]string{}, Cancel: CancelCascade}},
		{"addresses", Addresses{Callees: []Address{{Name: "worker", URL: "http://127.0.0.1:2", SessionID: ses}}}.Line(),
			`{"type":"addresses","callees":[{"name":"worker","url":"http://127.0.0.1:2","session_id":"` + ses + `"}]}`,
			func(b []byte) (any, error) { return ParseAddresses(b) },
			Addresses{Type: TypeAddresses, Callees: []Address{{Name: "worker", URL: "http://127.0.0.1:2", SessionID: ses}}}},
		{"spawner hello", SpawnerHello{DelegationID: "dlg_1", Depth: 2, CompletionToken: "c", DoorToken: "d"}.Line(),
			`{"type":"spawner","delegation_id":"dlg_1","depth":2,"completion_token":"c","door_token":"d"}`,
			func(b []byte) (any, error) { return ParseSpawnerHello(b) },
			SpawnerHello{Type: TypeSpawner, DelegationID: "dlg_1", Depth: 2, CompletionToken: "c", DoorToken: "d"}},
		{"formation", Formation{Entry: "lead", FormationID: "frm_1", Peers: []Peer{{Name: "worker", PID: 3, SessionID: ses, URL: "u", Workdir: "/w"}}}.Line(),
			`{"entry":"lead","formation_id":"frm_1","peers":[{"name":"worker","pid":3,"session_id":"` + ses + `","url":"u","workdir":"/w"}]}`,
			func(b []byte) (any, error) { return ParseFormation(b) },
			Formation{Entry: "lead", FormationID: "frm_1", Peers: []Peer{{Name: "worker", PID: 3, SessionID: ses, URL: "u", Workdir: "/w"}}}},
	}
	for _, tt := range tests {
		if got := string(tt.line); got != tt.want+"\n" {
			t.Errorf("%s: line\n%s\nwant\n%s", tt.name, got, tt.want)
		}
		got, err := tt.parse(tt.line)
		if err != nil || !reflect.DeepEqual(got, tt.value) {
			t.Errorf("%s: parse = %+v, %v; want %+v", tt.name, got, err, tt.value)
		}
	}
}

// TestParseRefuses: a line of another type, or not JSON, is refused.
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	if _, err := ParseAddresses([]byte(`{"type":"credentials"}`)); err == nil {
		t.Error("ParseAddresses took a credentials line")
	}
	if _, err := ParseAddresses([]byte(`{`)); err == nil {
		t.Error("ParseAddresses took a broken line")
	}
	for _, l := range []string{`{"type":"addresses"}`, `not json`, ``} {
		if _, err := ParseSpawnerHello([]byte(l)); !errors.Is(err, ErrNotSpawnerHello) {
			t.Errorf("ParseSpawnerHello(%q) = %v, want ErrNotSpawnerHello", l, err)
		}
	}
	if _, err := ParseReady([]byte("hello")); err == nil || !strings.Contains(err.Error(), "invalid character 'h'") {
		t.Errorf("ParseReady(hello) = %v, want the decoder's error", err)
	}
}

// TestOrderly: the orderly end is recognised in the lifeline's head, and an
// empty or stray head is a launcher that died.
func TestOrderly(t *testing.T) {
	t.Parallel()
	for head, want := range map[string]bool{OrderlyEnd: true, "": false, "junk": false, "x" + OrderlyEnd: true, "end": false} {
		if got := Orderly([]byte(head)); got != want {
			t.Errorf("Orderly(%q) = %v, want %v", head, got, want)
		}
	}
}

// TestCompletion: the posted message carries no delivery fields, and
// ParseCompletion takes only a child's status for a delegation id.
func TestCompletion(t *testing.T) {
	t.Parallel()
	dlg := "dlg_019a0000000070008000000000000001"
	c := Completion{DelegationID: dlg, CapsuleName: "c", CapsuleVersion: "1", SessionID: "ses_x", Status: StatusOK,
		Workdir: "/w", DurationMS: 5, ReportedBy: ReportedByChild, Delivered: true, DeliveryError: "e"}
	want := `{"delegation_id":"` + dlg + `","capsule_name":"c","capsule_version":"1","session_id":"ses_x","status":"ok","workdir":"/w","duration_ms":5}`
	if got := c.Message(); got != want {
		t.Errorf("Message\n%s\nwant\n%s", got, want)
	}
	if got, ok := ParseCompletion([]byte(c.Message())); !ok || got.Status != StatusOK || got.DelegationID != dlg || got.Delivered {
		t.Errorf("ParseCompletion(Message) = %+v, %v", got, ok)
	}
	for _, bad := range []string{`{"delegation_id":"` + dlg + `","status":"unknown"}`, `{"delegation_id":"dlg_x","status":"ok"}`, `[]`} {
		if _, ok := ParseCompletion([]byte(bad)); ok {
			t.Errorf("ParseCompletion(%s) ok", bad)
		}
	}
}
