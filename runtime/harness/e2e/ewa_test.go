package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/harness/bridge"
	"github.com/murmur-go/mur/runtime/trace"
)

// formation installs a three-member formation in a new project and runs
// it with task to its end: lead (scripted, the entry) calls mid, whose
// harness is the fake as claude with script, and which may call the
// scripted worker. It returns mid's records directory, the entry's result
// and stderr.
func formation(t *testing.T, script, task string) (midRecords, entryResult, stderr string) {
	t.Helper()
	root := testmur.TempDir(t)
	c := hcap{dir: filepath.Join(root, "proj"), home: filepath.Join(root, "mhome"), hhome: filepath.Join(root, "hhome")}
	bin := filepath.Join(root, "bin", "claude")
	mkdirs(t, filepath.Join(c.dir, "lead"), filepath.Join(c.dir, "mid"), filepath.Join(c.dir, "worker"), c.hhome, filepath.Dir(bin))
	if err := os.Symlink(fake, bin); err != nil {
		t.Fatal(err)
	}
	const peer = "lifecycle: {task_acceptance: queue, after_task: sleep}\nexports:\n  peer_tasks: {accept: true}\nnetwork:\n  authentication: {scheme: bearer}\n"
	for rel, body := range map[string]string{
		"lead/murmur.yaml": "name: e2e-lead\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\ncapabilities:\n  network: {allow: [localhost]}\n" +
			"network:\n  authentication: {scheme: bearer}\n",
		"lead/script.yaml": "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: call-member, input: {member: mid, task: \"{{task}}\"}}]\n" +
			"      - text: waiting\n      - text: \"lead got: {{member_answer:mid}}\"\n",
		"mid/murmur.yaml": fmt.Sprintf("name: e2e-mid\nversion: \"0.1.0\"\ncapabilities:\n  env: {allow: [HOME, PATH, FAKE_HARNESS_SCRIPT]}\n  shell: {allow: [echo]}\n"+
			"  network: {allow: [localhost]}\ninference:\n  transport: process\n  command: %s\ntrace:\n  capture: content\n", bin) + peer,
		"worker/murmur.yaml": "name: e2e-worker\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n" + peer,
		"worker/script.yaml": workerScript,
		"roster.yaml": "roster_version: 1\nmembers:\n  - {name: lead, capsule: e2e-lead, version: \"0.1.0\", entry: true}\n" +
			"  - {name: mid, capsule: e2e-mid, version: \"0.1.0\"}\n  - {name: worker, capsule: e2e-worker, version: \"0.1.0\"}\n" +
			"reachability:\n  - {from: lead, to: [mid]}\n  - {from: mid, to: [worker]}\n",
	} {
		if err := os.WriteFile(filepath.Join(c.dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Beside the fake's binary: a contained harness reads that directory,
	// not the project directory, which is not its workdir.
	scriptFile := filepath.Join(filepath.Dir(bin), "script.json")
	if err := os.WriteFile(scriptFile, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	c.env = []string{"HOME=" + c.hhome, "FAKE_HARNESS_SCRIPT=" + scriptFile}
	for _, m := range []string{"lead", "mid", "worker"} {
		cmd := exec.Command(mur, "install", m)
		cmd.Dir, cmd.Env = c.dir, testmur.Env(c.home, c.env...)
		if out, err := testmur.Combined(cmd); err != nil {
			t.Fatalf("mur install %s: %v\n%s", m, err, out)
		}
	}
	cmd := c.command("run", "--roster", ".", "--json", "--task", task)
	var errb testmur.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for sc := bufio.NewScanner(out); sc.Scan(); {
		lines = append(lines, sc.Text())
	}
	werr := cmd.Wait()
	noneLeft(t, cmd.Process.Pid)
	var form struct {
		Peers []struct {
			Name      string `json:"name"`
			SessionID string `json:"session_id"`
			Workdir   string `json:"workdir"`
		} `json:"peers"`
	}
	var entry readiness
	if len(lines) < 2 || json.Unmarshal([]byte(lines[0]), &form) != nil || json.Unmarshal([]byte(lines[1]), &entry) != nil {
		t.Fatalf("mur run --roster: %v, stdout %q, stderr %s", werr, lines, errb.String())
	}
	for _, p := range form.Peers {
		if p.Name == "mid" {
			midRecords = filepath.Join(c.home, "records", p.Workdir[1:], p.SessionID)
		}
	}
	return midRecords, result(t, entry), errb.String()
}

// TestEndWithoutAnswer is PROC-15: end-without-answer is accepted without
// interrupting the run; a later turn's call is refused (BRG-7) and the
// attempt ends no_answer when the run ends, its text discarded (EWA-4).
func TestEndWithoutAnswer(t *testing.T) {
	t.Parallel()
	mid, res, stderr := formation(t, `{"runs":[{"steps":[
		{"tool":{"name":"end-without-answer","args":{"reason":"worker is not needed and I cannot answer"}}},
		{"tool":{"name":"echo","args":{"command":"too late"}}},
		{"answer":"this text is discarded"}]}]}`, "answer me")
	if !strings.Contains(res, "worker is not needed and I cannot answer") || strings.Contains(res, "discarded") {
		t.Errorf("lead's answer = %q, want mid's no-answer reason; stderr %s", res, stderr)
	}
	recs := records(t, mid)
	tcs := of[trace.ToolCall](t, recs)
	if len(tcs) != 2 || tcs[0].Status != "ok" || tcs[1].Status != "error" || *tcs[1].Output != bridge.RefusalEnding("echo") {
		t.Fatalf("tool_call = %+v", tcs)
	}
	if ex := only[trace.HarnessExit](t, recs); ex.Cause != "completed" {
		t.Errorf("harness_exit = %+v: end-without-answer does not interrupt the run", ex)
	}
	if n := len(of[trace.Shell](t, recs)); n != 0 {
		t.Errorf("%d shell records: the refused call ran", n)
	}
}
