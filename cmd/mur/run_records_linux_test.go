package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// A records directory deleted under a running session is
// noticed at the next durable write (trace.jsonl's link count is 0); the
// task is not reported done and the session ends E-RUN-007 naming the path.
func TestRunRecordsDeleted_ERUN007(t *testing.T) {
	e := blockingCapsule(t, "", "echo $$ > ready; read x < go")
	testmur.FIFO(t, filepath.Join(e.dir, "go"))
	p := e.start(t, "--capsule", e.dir, "--task", "block")
	p.line(t) // murmur: url
	ses := strings.TrimPrefix(p.line(t), "session: ")
	readyPgid(t, e, p) // the command runs
	records := filepath.Join(e.home, "records", strings.TrimPrefix(e.dir, "/"), ses)
	if err := os.RemoveAll(records); err != nil {
		t.Fatal(err)
	}
	testmur.WriteFIFO(t, filepath.Join(e.dir, "go"), []byte("x\n"), p.cmd.Process)
	code := p.wait()
	want := "error[E-RUN-007]: the trace could not be written: " + records + "/trace.jsonl: the file was removed (its link count is 0); the session ends\n"
	if code != 1 || !strings.HasSuffix(p.stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want 1 and a stderr ending %q", code, p.stderr.String(), want)
	}
}

// On a full disk a trace record is written whole or not at
// all (a short write is cut back to the last newline) and the session ends
// E-RUN-007 (LOOP-19). The disk is a 1 MiB tmpfs mounted here, which needs
// root.
func TestRunTraceFullDisk_LOOP19(t *testing.T) {
	disk := smallDisk(t)
	home, wd := filepath.Join(disk, "home"), filepath.Join(disk, "wd")
	for _, d := range []string{home, wd} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The command fills the disk; its text, over a page long, is in the
	// shell record written next, which cannot fit in what is left.
	fill := "head -c 4000000 /dev/zero > fill; : " + strings.Repeat("x", 6000)
	files := map[string]string{
		"murmur.yaml": "name: filler\nversion: \"1.0.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		"script.yaml": fmt.Sprintf("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: bash, input: {command: %q}}]\n      - text: done\n", fill),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(wd, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(murBin, "run", "--capsule", wd, "--task", "fill the disk")
	cmd.Dir = wd
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "MURMUR_HOME=" + home, "HOME=" + home}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := testmur.RunCmd(cmd)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "error[E-RUN-007]: the trace could not be written: ") ||
		!strings.Contains(stderr.String(), "trace.jsonl: no space left on device; the session ends") {
		t.Errorf("mur run: %v, stderr %q; want exit 1 with E-RUN-007 (no space left on device)", err, stderr.String())
	}
	var trace string
	_ = filepath.WalkDir(filepath.Join(home, "records"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "trace.jsonl" {
			trace = p
		}
		return nil
	})
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Errorf("trace.jsonl does not end with a newline: its last line was cut: %q", tail(b, 200))
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("trace.jsonl line %d is not whole JSON: %q", i+1, tail([]byte(line), 200))
		}
	}
}

// smallDisk mounts a 1 MiB tmpfs for the test and unmounts it after; it
// skips the test where mounting is not allowed (not root).
func smallDisk(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk is a tmpfs mounted by the test, which needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m,mode=0700"); err != nil {
		t.Skipf("a full disk is a tmpfs mounted by the test: mount: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
