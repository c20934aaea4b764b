package main

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// doctorScript is a valid DRV-7 script for the doctor fixtures.
const doctorScript = "script_version: 1\nrules:\n  - match: {always: true}\n    turns: [{text: done}]\n"

// TestDoctorAllPassedCLI14 is the clean checklist, from a subdirectory.
func TestDoctorAllPassedCLI14(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{
		"proj/murmur.yaml": "name: app\nversion: 1.0.0\ninference:\n  driver: {kind: scripted, script: script.yaml}\n" +
			"  alternates: [{name: local, kind: openai, model: q, endpoint: 'http://localhost:11434/v1', keyless: true}]\n",
		"proj/script.yaml": doctorScript,
		"proj/sub/.keep":   "",
	})
	out, errOut, code := e.mur(t, "proj/sub", "doctor")
	if errOut != "" || code != 0 {
		t.Fatalf("doctor: stderr %q, exit %d", errOut, code)
	}
	e.golden(t, "doctor-ok", out)
}

// TestDoctorTallyCLI14 mixes passed checks, errors and every warning kind:
// the tally, its plurals and the Fix: lines in order.
func TestDoctorTallyCLI14(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.tool(t, "src/edit", "tool-edit", "1.0.0", "one")
	e.write(t, map[string]string{
		"proj/murmur.yaml": `name: app
version: 1.0.0
mur_version: 9.9.9
artifacts:
  - {name: murmur/tool-edit, version: 1.0.0}
  - {name: fmt, version: 2.0.0}
capabilities:
  shel: {allow: [bash]}
lifecycle: {shell_grace_secs: 10}
inference:
  driver: {kind: openai, model: gpt-x, api_key: "${MUR_DOCTOR_TEST_PRIMARY}"}
  alternates:
    - {name: local, kind: openai, model: qwen, endpoint: "http://127.0.0.1:11434/v1", keyless: true}
    - {name: spare, kind: anthropic, model: claude-x, api_key: "${MUR_DOCTOR_TEST_UNSET_KEY}"}
`,
		"proj/.env": "MUR_DOCTOR_TEST_PRIMARY=from-dotenv\n",
	})
	if _, errOut, code := e.mur(t, "proj", "install", "../src/edit"); code != 0 {
		t.Fatalf("install: %s", errOut)
	}
	out, errOut, code := e.mur(t, "proj", "doctor", "--bind", "0.0.0.0")
	if errOut != "" || code != 1 {
		t.Fatalf("doctor: stderr %q, exit %d, want 1", errOut, code)
	}
	e.golden(t, "doctor-tally", out)
}

// TestDoctorManifestFailureCLI14: a failing manifest check ends the list.
func TestDoctorManifestFailureCLI14(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{
		"unset/murmur.yaml":     "name: app\nversion: 1.0.0\ninference: {driver: {kind: anthropic, model: m, api_key: '${MUR_DOCTOR_TEST_UNSET_KEY}'}}\n",
		"noscript/murmur.yaml":  projectManifest,
		"badscript/murmur.yaml": projectManifest,
		"badscript/script.yaml": "script_version: 2\nrules: []\n",
	})
	for _, dir := range []string{"unset", "noscript", "badscript"} {
		out, errOut, code := e.mur(t, dir, "doctor")
		if errOut != "" || code != 1 {
			t.Errorf("doctor in %s: stderr %q, exit %d, want 1", dir, errOut, code)
		}
		e.golden(t, "doctor-"+dir, out)
	}
}

// TestDoctorDoorCLI14: a taken internal_port fails the door check (E-RUN-010).
func TestDoctorDoorCLI14(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	e := newArtEnv(t)
	e.write(t, map[string]string{
		"proj/murmur.yaml": projectManifest + "network: {internal_port: " + port + "}\n",
		"proj/script.yaml": doctorScript,
	})
	out, errOut, code := e.mur(t, "proj", "doctor")
	want := "✓ manifest " + e.root + "/proj/murmur.yaml\n" +
		"✓ credential primary (none)\n" +
		"✓ " + kernelContainment() + "\n" +
		"✗ door 127.0.0.1:" + port + ": the door could not bind 127.0.0.1:" + port + ": address already in use\n" +
		"\n3 checks passed, 1 error found.\n\n" +
		"Fix: free the port, or change network.internal_port or --port\n"
	expect(t, "doctor with a taken port", out, errOut, code, want, "", 1)
}

// TestDoctorNoProjectCLI14 is DOC-1's "neither a project nor a roster" and the usage errors.
func TestDoctorNoProjectCLI14(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	out, errOut, code := e.mur(t, "", "doctor")
	expect(t, "doctor outside a project", out, errOut, code, "",
		"error[E-IO-001]: "+e.root+"/murmur.yaml: no such file or directory\n  hint: check the path\n", 1)
	out, errOut, code = e.mur(t, "", "doctor", "--bind", "example.com")
	expect(t, "doctor --bind host", out, errOut, code, "",
		"error: invalid value 'example.com' for --bind: give an IP literal or localhost\nrun 'mur doctor --help' for usage\n", 2)
	out, errOut, code = e.mur(t, "", "doctor", "extra")
	expect(t, "doctor extra", out, errOut, code, "", "error: unexpected argument 'extra'\nrun 'mur doctor --help' for usage\n", 2)
	if out, _, code := e.mur(t, "", "doctor", "--help"); code != 0 || !strings.HasPrefix(out, "Usage: mur doctor [--bind <addr>] [--strict] [--json]\n") {
		t.Errorf("doctor --help: %q %d", out, code)
	}
}
