package trace

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/peerplane"
)

// TestRecordsNeverHoldAToken: a peer-file handle in any field of any
// record — here a fetch-peer-file tool_call's input and a share-file
// result's output — is written as <handle:<handle_id>>, and the line still
// reads back byte for byte (tools.md PFILE-6).
func TestRecordsNeverHoldAToken(t *testing.T) {
	t.Parallel()
	key := peerplane.NewKey()
	tok, err := peerplane.Mint(key, peerplane.Payload{Iss: "ses_x", P: "report.md", Exp: 1}, "fetcher@127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	out := `{"handle":"` + tok + `"}`
	ff := &fakeFile{}
	w := New(ff, "t", "ses_x", fixedNow)
	w.Redact(peerplane.RedactBytes)
	input, _ := json.Marshal(map[string]string{"handle": tok, "peer": "127.0.0.1:1"})
	if _, err := w.Write(ToolCall{TaskID: "tsk_1", ToolName: "fetch-peer-file", Input: input, Output: &out}); err != nil {
		t.Fatal(err)
	}
	line := ff.buf.String()
	if strings.Contains(line, tok) || strings.Contains(line, "mh1.") {
		t.Fatalf("the line holds the token: %s", line)
	}
	ph := peerplane.Placeholder(peerplane.ID(tok))
	if strings.Count(line, ph) != 2 {
		t.Errorf("the line has not two %s: %s", ph, line)
	}
	for l, err := range Lines(bytes.NewReader(ff.buf.Bytes())) {
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Check(); err != nil {
			t.Errorf("Check() = %v", err)
		}
	}
}
