package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// TestKilledPeersToolEndsWithIt: a peer SIGKILLed while its bash tool runs
// `sleep` leaves that process to the launcher (a subreaper), which ends it
// once the peer is reaped — while the formation still runs — rather than
// when the whole formation ends (LIFE-5; formations.md FCLI-4).
func TestKilledPeersToolEndsWithIt(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrewGlobal(t, w)
	dir := filepath.Join(w.dir, "src", "e2e-sleeper")
	os.MkdirAll(dir, 0o755)
	const nap = "86417" // a duration no other test sleeps, to find this one by
	os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(fmt.Sprintf(peerManifest, "e2e-sleeper")+"capabilities:\n  shell:\n    allow: [bash]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "script.yaml"), []byte("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: bash, input: {command: \"sleep "+nap+"; echo woke\"}}]\n      - text: slept\n"), 0o644)
	if _, errOut, code := w.run(t, ".", "install", "-g", dir); code != 0 {
		t.Fatalf("install: %s", errOut)
	}
	writeRoster(t, w, "nap", "roster_version: 1\nmembers:\n  - {name: lead, capsule: crew-lead, version: \"0.1.0\", entry: true}\n  - {name: sleeper, capsule: e2e-sleeper, version: \"0.1.0\"}\n")
	l := w.start(t, "nap", "run", "--roster", "--json")
	fl := decode[formationLine](t, l.line(t))
	_ = l.line(t) // the entry's readiness
	peer := fl.Peers[0]
	out, errOut, code := w.run(t, ".", "token", peer.SessionID)
	f := strings.Fields(out) // "operator <token>"
	if code != 0 || len(f) != 2 {
		t.Fatalf("mur token: %d %q %s", code, out, errOut)
	}
	token := f[1]
	sent := make(chan struct{})
	answer := make(chan string, 1)
	go func() { // answered only when the peer dies: its error is the expected end
		defer close(sent)
		req, _ := http.NewRequest("POST", peer.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"nap"}]}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("Authorization", "Bearer "+token)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answer <- fmt.Sprintf("%d %s", resp.StatusCode, b)
		} else {
			answer <- err.Error()
		}
	}()
	sleeping := func() []string {
		want := []byte("sleep\x00" + nap + "\x00")
		return testmur.Procs(func(_ []string, cmdline []byte) bool { return bytes.Equal(cmdline, want) })
	}
	testmur.Eventually(t, testmur.LeftBound*3, func() bool { return len(sleeping()) > 0 }, "the peer's bash tool never ran sleep (token %q, answer %q)", token, func() string {
		select {
		case a := <-answer:
			return a
		default:
			return ""
		}
	}())
	if err := syscall.Kill(peer.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-sent
	if !testmur.Within(testmur.LeftBound, func() bool { return len(sleeping()) == 0 }) {
		t.Errorf("the killed peer's tool still runs: %v", sleeping())
	}
	select {
	case <-l.done:
		t.Fatalf("the formation ended with its peer (stderr %q)", tail(l.stderr.String()))
	default:
	}
	if err := l.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := l.wait(); code != 143 {
		t.Errorf("launcher exit %d, want 143 (stderr %q)", code, tail(l.stderr.String()))
	}
}
