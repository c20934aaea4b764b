package main

import (
	"regexp"
	"strconv"
	"testing"
)

// A session's shell commands start with SIGPIPE at its default disposition:
// the session catches it (a closed stream never stops it, CLI-4) rather than
// ignoring it, which every command would inherit (LOOP-11).
func TestShellCommandsStartWithDefaultSIGPIPE(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: pipes\nversion: \"1.0.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\ncapabilities:\n  shell:\n    allow: [grep]\n",
		"script.yaml": "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: grep, input: {command: \"SigIgn /proc/self/status\"}}]\n      - text: \"{{tool_result}}\"\n",
	})
	out, errOut, code := e.run(t, "--capsule", ".", "--task", "show the ignored signals")
	if code != 0 {
		t.Fatalf("mur run exited %d; stderr:\n%s", code, errOut)
	}
	m := regexp.MustCompile(`SigIgn:\s*([0-9a-f]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no SigIgn line in:\n%s", out)
	}
	mask, err := strconv.ParseUint(m[1], 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	const sigpipe = 13
	if mask&(1<<(sigpipe-1)) != 0 {
		t.Errorf("SigIgn = %s: the shell command starts with SIGPIPE ignored", m[1])
	}
}
