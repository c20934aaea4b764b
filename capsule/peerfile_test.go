package capsule_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/capsuletest"
)

// ask sends text to the capsule's door, waits for the task's end and returns
// its answer, failing the test unless it completed.
func ask(t *testing.T, c *capsuletest.Capsule, text string) string {
	t.Helper()
	resp, err := c.Client(t).SendMessage(t.Context(), a2a.SendMessageRequest{Message: a2a.Message{
		MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	tk := resp.Task
	if tk == nil || tk.Status.State != a2a.TaskStateCompleted || tk.Artifact(a2a.ArtifactResponse) == nil {
		t.Fatalf("task = %+v, want a completed answer", tk)
	}
	return a2a.Text(tk.Artifact(a2a.ArtifactResponse).Parts)
}

// TestPeerFile: a sharer served in this process mints a handle for a
// fetcher served beside it; the fetcher redeems it at the sharer's door
// through fetch-peer-file, and the file it stores holds the shared bytes
// (PFILE-2, PFILE-4, PFILE-5).
func TestPeerFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	content := strings.Repeat("the report\n", 50)
	sharerDir := filepath.Join(w.dir, "sharer")
	if err := os.MkdirAll(filepath.Join(sharerDir, "out", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sharerDir, "out", "sub", "report.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	sharer := w.start(t, spec{name: "sharer", caps: "  network:\n    allow: [localhost]\n",
		extra:  "exports:\n  peer_files: {root: out, max_ttl: 15m, max_bytes: 1Ki}\nlifecycle: {task_acceptance: queue, after_task: sleep}\nnetwork:\n  authentication: {scheme: bearer}\n",
		script: "script_version: 1\nfallback:\n  turns:\n    - tool_calls: [{name: share-file, input: {path: sub/report.md, peer: \"{{task}}\"}}]\n    - text: \"{{tool_result}}\"\n"}, nil, nil)
	fetcher := w.start(t, spec{name: "fetcher", caps: "  peer_fetch:\n    allow: [localhost]\n",
		extra:  "lifecycle: {task_acceptance: queue, after_task: sleep}\n",
		script: "script_version: 1\nfallback:\n  turns:\n    - tool_calls: [{name: fetch-peer-file, input: {peer: \"" + sharer.URL + "\", handle: \"{{task}}\"}}]\n    - text: \"{{tool_result}}\"\n"}, nil, nil)
	u, err := url.Parse(fetcher.URL)
	if err != nil {
		t.Fatal(err)
	}
	var minted struct {
		Audience string `json:"audience"`
		Handle   string `json:"handle"`
		HandleID string `json:"handle_id"`
	}
	if err := json.Unmarshal([]byte(ask(t, sharer, u.Host)), &minted); err != nil || minted.Audience != "fetcher@"+u.Host || !strings.HasPrefix(minted.Handle, "mh1.") {
		t.Fatalf("share-file data = %+v, %v; want a handle for fetcher@%s", minted, err, u.Host)
	}
	var fetched struct {
		Bytes  int64  `json:"bytes"`
		Path   string `json:"path"`
		Peer   string `json:"peer"`
		SHA256 string `json:"sha256"`
	}
	if err := json.Unmarshal([]byte(ask(t, fetcher, minted.Handle)), &fetched); err != nil {
		t.Fatalf("fetch-peer-file data: %v", err)
	}
	sum := sha256.Sum256([]byte(content))
	if fetched.Path != "peer-in/"+minted.HandleID+"-report.md" || fetched.Bytes != int64(len(content)) || fetched.SHA256 != hex.EncodeToString(sum[:]) || fetched.Peer != sharer.URL {
		t.Errorf("fetch-peer-file data = %+v", fetched)
	}
	if got, err := os.ReadFile(filepath.Join(fetcher.Workdir, fetched.Path)); err != nil || string(got) != content {
		t.Errorf("the fetched file: %v, %d bytes; want the shared %d", err, len(got), len(content))
	}
}
