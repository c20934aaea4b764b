package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
)

// The --json outputs (docs/json.md), each through the real binary and
// compared with a golden file. A document is checked to be exactly one
// compact line; the golden holds it indented (json.Indent keeps the field
// order), with what differs between runs replaced: paths, ids, ports,
// times, pids, durations and token estimates (the prompt holds paths), and
// in a trace's records the digests of what was sent (they hold ids).

var (
	jsonID       = regexp.MustCompile(`\b(ses|frm|tsk|ctx|evt|msg|wrk|mcl)_[0-9a-f]{32}\b`)
	jsonPort     = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	jsonTime     = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	jsonSHA      = regexp.MustCompile(`"[0-9a-f]{64}"`)
	jsonVolatile = regexp.MustCompile(`"(duration_ms|avg_ms|uptime_secs|pid|input_bytes|output_bytes|stdout_bytes|stderr_bytes|input|output|total|input_tokens|output_tokens)": \d+`)
)

// jsonGolden checks that out is one JSON document on one line and compares
// it, indented and normalised, with testdata/<name>.golden. paths are
// replaced by their names ("$ROOT" → root) first, longest first.
func jsonGolden(t *testing.T, name, out string, paths map[string]string) {
	t.Helper()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("%s: --json printed %q, want one line", name, out)
	}
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: %v in %q", name, err, out)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(out), "", "  "); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	for len(keys) > 0 { // longest path first, so a path inside another stays whole
		i := 0
		for j, k := range keys {
			if len(paths[k]) > len(paths[keys[i]]) {
				i = j
			}
		}
		s = strings.ReplaceAll(s, paths[keys[i]], keys[i])
		keys = append(keys[:i], keys[i+1:]...)
	}
	seen := map[string]string{}
	s = jsonID.ReplaceAllStringFunc(s, func(id string) string {
		if n, ok := seen[id]; ok {
			return n
		}
		n := fmt.Sprintf("%s_%d", id[:3], len(seen)+1)
		seen[id] = n
		return n
	})
	s = jsonPort.ReplaceAllString(s, "127.0.0.1:PORT")
	s = jsonTime.ReplaceAllString(s, "TIME")
	if name == "trace-show" {
		s = jsonSHA.ReplaceAllString(s, `"SHA256"`)
	}
	s = jsonVolatile.ReplaceAllString(s, `"$1": 0`)
	golden.Check(t, "json-"+name, s)
}

// TestJSONArtifacts: mur install, mur install --force, mur list and mur
// version with --json.
func TestJSONArtifacts(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{"proj/murmur.yaml": projectManifest})
	e.tool(t, "src/edit", "tool-edit", "1.0.0", "one")
	paths := map[string]string{"$ROOT": e.root}

	out, errOut, code := e.mur(t, "proj", "install", "../src/edit", "--json")
	if code != 0 || errOut != "" {
		t.Fatalf("install --json = %d %s", code, errOut)
	}
	jsonGolden(t, "install", out, paths)
	e.tool(t, "src/edit", "tool-edit", "1.0.0", "two")
	if _, errOut, code := e.mur(t, "proj", "install", "../src/edit", "--json"); code != 1 || !strings.HasPrefix(errOut, "error[E-REG-005]") {
		t.Errorf("install --json against the pin = %d %s; want E-REG-005 on stderr, exit 1", code, errOut)
	}
	out, _, code = e.mur(t, "proj", "install", "--force", "../src/edit", "--json")
	if code != 0 {
		t.Fatalf("install --force --json = %d", code)
	}
	jsonGolden(t, "install-force", out, paths)
	if _, _, code := e.mur(t, "proj", "install", "-g", "../src/edit"); code != 0 {
		t.Fatal("install -g")
	}
	out, _, code = e.mur(t, "proj", "list", "--all", "--json")
	if code != 0 {
		t.Fatalf("list --all --json = %d", code)
	}
	jsonGolden(t, "list", out, paths)
	out, _, code = e.mur(t, "", "list", "--json") // outside a project, an empty global store is []
	if code != 0 || !strings.HasPrefix(out, `{"artifacts":[`) {
		t.Errorf("list --json = %d %q", code, out)
	}
	out, _, code = e.mur(t, "", "version", "--json")
	if code != 0 || out != `{"version":"`+version+`"}`+"\n" {
		t.Errorf("version --json = %d %q", code, out)
	}
}

// TestJSONDoctor: mur doctor --json for a project with errors and
// warnings, and for a formation directory; exit codes as without --json.
func TestJSONDoctor(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{
		"proj/murmur.yaml": "name: app\nversion: 1.0.0\ncapabilities:\n  shel: {allow: [bash]}\n" +
			"artifacts:\n  - {name: fmt, version: 2.0.0}\n" +
			"inference:\n  driver: {kind: scripted, script: script.yaml}\n" +
			"  alternates:\n    - {name: spare, kind: anthropic, model: claude-x, api_key: \"${MUR_JSON_TEST_UNSET}\"}\n",
		"proj/script.yaml": doctorScript,
	})
	out, errOut, code := e.mur(t, "proj", "doctor", "--json")
	if code != 1 || errOut != "" {
		t.Fatalf("doctor --json = %d, stderr %q; want 1", code, errOut)
	}
	jsonGolden(t, "doctor", out, map[string]string{"$ROOT": e.root, "containment $KERNEL": kernelContainment()})

	if _, errOut, code := e.mur(t, "", "new", "--roster", "crew"); code != 0 {
		t.Fatal(errOut)
	}
	for _, m := range []string{"lead", "worker"} {
		if _, errOut, code := e.mur(t, "", "install", "-g", "crew/"+m); code != 0 {
			t.Fatal(errOut)
		}
	}
	out, errOut, code = e.mur(t, "crew", "doctor", "--json")
	if code != 0 || errOut != "" {
		t.Fatalf("doctor --json in a formation directory = %d %s", code, errOut)
	}
	jsonGolden(t, "doctor-roster", out, map[string]string{"$ROOT": e.root})
}

// TestJSONSession: a door's session through mur conformance, mur ps and mur
// stop with --json, then mur trace show --json of a session that ran a
// task with a tool call.
func TestJSONSession(t *testing.T) {
	t.Parallel()
	e := helloEnv(t)
	// A task text the agent keeps working on until it is canceled, so that
	// the conformance checks needing a live task never depend on timing.
	script := "script_version: 1\nrules:\n" +
		"  - match: {contains: \"keep working\"}\n    turns: [{delay_ms: 600000, text: \"done\"}]\n" +
		"  - match: {contains: \"list\"}\n    turns:\n      - tool_calls: [{name: bash, input: {command: \"ls -1\"}}]\n      - text: \"Files:\\n{{tool_result}}\"\n" +
		"fallback:\n  turns: [{text: \"I can only list files.\"}]\n"
	if err := os.WriteFile(filepath.Join(e.dir, "script.yaml"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	p := e.start(t, "--capsule", e.dir, "--json", "--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
	var ready struct {
		URL       string `json:"url"`
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(p.line(t)), &ready); err != nil {
		t.Fatal(err)
	}
	mur := func(args ...string) (string, string, int) {
		cmd := exec.Command(murBin, args...)
		cmd.Dir = e.dir
		cmd.Env = append(os.Environ(), "MURMUR_HOME="+e.home)
		return testmur.Exec(t, cmd)
	}
	paths := map[string]string{"$HOME": e.home, "$DIR": e.dir}

	out, errOut, code := mur("conformance", ready.URL, "--json", "--slow-task-text", "keep working")
	if code != 0 {
		t.Fatalf("conformance --json = %d\n%s%s", code, out, errOut)
	}
	jsonGolden(t, "conformance", out, paths)
	out, _, code = mur("ps", "--json")
	if code != 0 {
		t.Fatalf("ps --json = %d", code)
	}
	jsonGolden(t, "ps", out, paths)
	out, errOut, code = mur("stop", ready.SessionID, "--json")
	if code != 0 {
		t.Fatalf("stop --json = %d %s", code, errOut)
	}
	jsonGolden(t, "stop", out, paths)
	if code := p.wait(); code != 0 {
		t.Errorf("the stopped session exited %d", code)
	}
	out, _, code = mur("ps", "--json")
	if code != 0 || out != `{"sessions":[],"pruned":[]}`+"\n" {
		t.Errorf("ps --json with nothing running = %d %q", code, out)
	}

	if _, errOut, code := e.run(t, "--capsule", e.dir, "--task", "list the files"); code != 0 {
		t.Fatalf("mur run = %d %s", code, errOut)
	}
	out, errOut, code = mur("trace", "show", "--json")
	if code != 0 {
		t.Fatalf("trace show --json = %d %s", code, errOut)
	}
	jsonGolden(t, "trace-show", out, paths)
	if _, errOut, code := mur("trace", "show", "ses_0000", "--json"); code != 1 || !strings.HasPrefix(errOut, "error[E-TRC-002]") {
		t.Errorf("trace show --json of no session = %d %s; want E-TRC-002 on stderr, exit 1", code, errOut)
	}
}
