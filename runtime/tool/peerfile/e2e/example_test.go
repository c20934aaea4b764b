package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// TestPeerFilesExample runs examples/peer-files/run.sh as its README does:
// the fetched file's sha256 is the shared file's, the last line is
// "status:  ok", and nothing it started is left running.
func TestPeerFilesExample(t *testing.T) {
	t.Parallel()
	root := testmur.TempDir(t)
	cmd := exec.Command("sh", "../../../../examples/peer-files/run.sh")
	cmd.Env = testmur.Env(filepath.Join(root, "home"), "MUR="+mur, "TMPDIR="+root)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := testmur.RunCmd(cmd)
	if left := testmur.InSession(cmd.Process.Pid); len(left) > 0 {
		t.Errorf("run.sh left processes running: %v", left)
	}
	if err != nil {
		t.Fatalf("run.sh: %v\n%s%s", err, out.String(), errb.String())
	}
	m := regexp.MustCompile(`(?m)^shared:  (\S+)  sha256 ([0-9a-f]{64})\nfetched: (\S+/peer-in/[0-9a-f]{16}-report\.md)  sha256 ([0-9a-f]{64})\nstatus:  ok\n$`).
		FindStringSubmatch(out.String())
	if m == nil || m[2] != m[4] {
		t.Fatalf("run.sh printed:\n%s", out.String())
	}
	a, err1 := os.ReadFile(m[1])
	b, err2 := os.ReadFile(m[3])
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) || sum(a) != m[2] {
		t.Errorf("the files differ: %v %v", err1, err2)
	}
}
