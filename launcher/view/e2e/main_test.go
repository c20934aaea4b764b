package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/wire"
)

// mur is the real binary, built once by TestMain.
var mur string

func TestMain(m *testing.M) { os.Exit(testmur.Run(m, testmur.Mur, &mur)) }

// project is one test's roster directory and $MURMUR_HOME, symlinks resolved.
type project struct {
	dir, home string
}

func newProject(t testing.TB) *project {
	t.Helper()
	p := &project{}
	p.dir, p.home = testmur.Dirs(t, "project")
	return p
}

func (p *project) env() []string { return testmur.Env(p.home) }

// mur runs the real mur in the project directory to its end.
func (p *project) mur(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command(mur, args...)
	cmd.Dir, cmd.Env = p.dir, p.env()
	out, errOut, code := testmur.Exec(t, cmd)
	if code != 0 {
		t.Fatalf("mur %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// proc is a background mur started in a session of its own, so that every
// process it starts can be found and ended.
type proc struct {
	*testmur.Lines
	cmd    *exec.Cmd
	stderr *testmur.Buffer
}

func (p *project) start(t testing.TB, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(mur, args...)
	cmd.Dir, cmd.Env = p.dir, p.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	ln := testmur.StartLines(t, cmd)
	return &proc{Lines: ln, cmd: cmd, stderr: ln.Stderr}
}

// line decodes the next stdout line into v, failing the test at EOF.
func (pr *proc) line(t testing.TB, v any) {
	t.Helper()
	s := pr.Line(t)
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
}

// stop sends SIGTERM, reaps the process and returns its exit code; it fails
// the test if anything it started is still alive.
func (pr *proc) stop(t testing.TB) int {
	t.Helper()
	_ = pr.cmd.Process.Signal(syscall.SIGTERM)
	code := pr.Wait()
	noneLeft(t, pr.cmd.Process.Pid)
	return code
}

// formationLine and readiness are the launcher's two --json lines
// (formations.md FCLI-1, capsule.md CLI-4): the wire types.
type (
	formationLine = wire.Formation
	readiness     = wire.Ready
)

// viewLine is mur view's --json line.
type viewLine struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	PID  int    `json:"pid"`
	URL  string `json:"url"`
}

// launch starts `mur run --roster . --json` in door mode (formations.md
// LAUNCH-7) and reads its two lines.
func (p *project) launch(t testing.TB) (*proc, formationLine, readiness) {
	t.Helper()
	l := p.start(t, "run", "--roster", ".", "--json")
	fl := l.Formation(t)
	return l, fl, l.Ready(t)
}

// view starts `mur view <id> --json` and reads its line.
func (p *project) view(t testing.TB, id string) (*proc, viewLine) {
	t.Helper()
	v := p.start(t, "view", id, "--json")
	var vl viewLine
	v.line(t, &vl)
	if vl.ID != id || !strings.HasPrefix(vl.URL, "http://127.0.0.1:") || !strings.Contains(vl.URL, "/?token=") {
		t.Fatalf("mur view --json = %+v", vl)
	}
	return v, vl
}

// operatorToken reads session ses's operator token with mur token, as a user would.
func (p *project) operatorToken(t testing.TB, ses string) string {
	t.Helper()
	for _, line := range strings.Split(p.mur(t, "token", ses), "\n") {
		if tok, ok := strings.CutPrefix(line, "operator "); ok {
			return tok
		}
	}
	t.Fatalf("mur token %s printed no operator token", ses)
	return ""
}

// sendTask does what this curl does, and returns the task id:
//
//	curl -s "$URL" -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \
//	  -H "Authorization: Bearer $TOKEN" -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage",
//	  "params":{"message":{"messageId":"…","role":"ROLE_USER","parts":[{"text":"…"}]},
//	  "configuration":{"returnImmediately":true}}}'
func sendTask(t testing.TB, url, token, text string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": map[string]any{
		"message":       map[string]any{"messageId": "msg-view-e2e-" + strconv.FormatInt(time.Now().UnixNano(), 36), "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}},
		"configuration": map[string]any{"returnImmediately": true},
	}})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 || out.Result.Task.ID == "" {
		t.Fatalf("SendMessage: %d %v %s", resp.StatusCode, err, out.Error)
	}
	return out.Result.Task.ID
}

// noneLeft fails unless no live (non-zombie) process remains in session
// sid, polled within testmur.LeftBound.
func noneLeft(t testing.TB, sid int) {
	t.Helper()
	testmur.NoneLeft(t, sid)
}
