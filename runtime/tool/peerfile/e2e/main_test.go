package e2e

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/wire"
)

// mur is the real binary, built once by TestMain.
var mur string

func TestMain(m *testing.M) {
	if path := os.Getenv(bareServeEnv); path != "" {
		os.Exit(bareServe(path)) // the benchmark's baseline, a process of its own
	}
	os.Exit(testmur.Run(m, testmur.Mur, &mur))
}

// world is one test's directory and the $MURMUR_HOME its capsules share.
type world struct {
	root, home string
	procs      []*proc
}

func newWorld(t testing.TB) *world {
	t.Helper()
	root := testmur.TempDir(t)
	return &world{root: root, home: filepath.Join(root, "home")}
}

// write writes a file under the world's directory.
func (w *world) write(t testing.TB, rel, text string) string {
	t.Helper()
	path := filepath.Join(w.root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readiness is CLI-4's --json line.
type readiness = wire.Ready

// proc is one running `mur run --json` serving its door, in a process
// group of its own, started through testmur.StartLines.
type proc struct {
	*testmur.Lines
	cmd    *exec.Cmd
	stderr *testmur.Buffer
	ready  readiness
	token  string // the operator's door token, on an authenticated door
}

// start runs `mur run --json` in dir (a capsule directory under the world)
// and waits for its readiness line.
func (w *world) start(t testing.TB, dir string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(mur, append([]string{"run", "--json"}, args...)...)
	cmd.Dir, cmd.Env = filepath.Join(w.root, dir), testmur.Env(w.home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ln := testmur.StartLines(t, cmd)
	p := &proc{Lines: ln, cmd: cmd, stderr: ln.Stderr}
	w.procs = append(w.procs, p)
	p.ready = ln.Ready(t)
	return p
}

// operatorToken reads the session's operator token with mur token.
func (w *world) operatorToken(t testing.TB, p *proc) {
	t.Helper()
	cmd := exec.Command(mur, "token", p.ready.SessionID)
	cmd.Env = testmur.Env(w.home)
	stdout, stderr, code := testmur.Exec(t, cmd)
	name, tok, _ := strings.Cut(strings.SplitN(stdout, "\n", 2)[0], " ")
	if code != 0 || name != "operator" || tok == "" {
		t.Fatalf("mur token = %d %q %q", code, stdout, stderr)
	}
	p.token = tok
}

// stop ends the session with SIGTERM and waits for the process.
func (p *proc) stop(t testing.TB) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	var ee *exec.ExitError
	if err := p.Err(); err != nil && !errors.As(err, &ee) {
		t.Errorf("mur run: %v", err)
	}
}

// send gives the capsule a task and waits for its answer (SendMessage,
// blocking), which must complete; it returns the answer's text.
func (p *proc) send(t testing.TB, text string) string {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: p.ready.URL, Token: p.token})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := c.SendMessage(ctx, a2a.SendMessageRequest{Message: a2a.Message{
		MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}})
	if err != nil {
		t.Fatalf("SendMessage to %s: %v", p.ready.Name, err)
	}
	tk := resp.Task
	if tk == nil || tk.Status.State != a2a.TaskStateCompleted || tk.Artifact(a2a.ArtifactResponse) == nil {
		t.Fatalf("%s's task = %+v, want a completed answer", p.ready.Name, tk)
	}
	return a2a.Text(tk.Artifact(a2a.ArtifactResponse).Parts)
}

// answer is one HTTP answer, read whole.
type answer struct {
	status int
	header http.Header
	body   string
}

// redeem GETs /resources/peer/<handle> at the door with no token, sending
// x-murmur-audience when audience is not "".
func (p *proc) redeem(t testing.TB, handle, audience string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.ready.URL+"/resources/peer/"+handle, nil)
	if err != nil {
		t.Fatal(err)
	}
	if audience != "" {
		req.Header.Set("x-murmur-audience", audience)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := bufio.NewReader(resp.Body).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b.String()}
}
