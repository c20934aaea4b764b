package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/diag"
)

func TestResultTexts_SES5(t *testing.T) {
	lines := []string{
		agent.ResultMaxTokens("Files:\na", 8192),
		agent.ResultFailed("openai endpoint answered HTTP 500: boom"),
		agent.ResultMaxTurns(4),
		agent.ResultSpend(1000, 900, 8300),
		agent.ResultTurnBudget,
		agent.ResultCanceled("CancelTask"),
		agent.ResultCanceled(ByFormation),
		agent.ResultNoAnswer("worker gave none"),
	}
	golden.Check(t, "result_texts", strings.Join(lines, "\n---\n")+"\n")
	for in, want := range map[string]string{
		"error: x": "x", "stopped: inference.max_turns (4) reached before the task finished": "inference.max_turns (4) reached before the task finished",
		"canceled: SIGTERM": "SIGTERM", "no answer: y": "no answer: y",
	} {
		if got := BareReason(in); got != want {
			t.Errorf("BareReason(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResultFileAtomic_SES5(t *testing.T) {
	dir := t.TempDir()
	if err := writeResult(dir, "first"); err != nil {
		t.Fatal(err)
	}
	if err := writeResult(dir, "second, no newline"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "result.txt"))
	if string(b) != "second, no newline" {
		t.Errorf("result.txt = %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("dir holds %d entries, want only result.txt (temp file renamed)", len(ents))
	}
}

func TestSystemPrompt_LOOP6(t *testing.T) {
	got := systemPrompt("hello-shell", "0.1.0", "You list files when asked.")
	want := "[Capsule]\nname: hello-shell\nversion: 0.1.0\n\nYou list files when asked."
	if got != want {
		t.Errorf("system prompt = %q, want %q", got, want)
	}
	if got := systemPrompt("a", "1", ""); got != "[Capsule]\nname: a\nversion: 1" {
		t.Errorf("system prompt without a prompt = %q", got)
	}
	if got := sessionContext("ses_x", "http://127.0.0.1:4000", "/w"); got != "[Session]\nsession: ses_x\ndoor: http://127.0.0.1:4000\nworkdir: /w" {
		t.Errorf("session context = %q", got)
	}
}

func TestPrepareRefusals_MAN4(t *testing.T) {
	base := fmt.Sprintf(scriptedManifest, "")
	cases := []struct {
		name     string
		manifest string
		script   string
		mutate   func(dir string, o *Options)
		code     diag.Code
		msg      string
	}{
		{"missing manifest", "", "", func(dir string, o *Options) { o.ManifestPath = filepath.Join(dir, "nope", "murmur.yaml") },
			diag.EIO001, "nope/murmur.yaml: no such file or directory"},
		{"bad acceptance override", base, "script_version: 1\nrules: []\n", func(_ string, o *Options) { o.Acceptance = "many" },
			diag.EMAN003, "--lifecycle-task-acceptance: 'many' is not one of none, single, queue"},
		{"bad after_task override", base, "script_version: 1\nrules: []\n", func(_ string, o *Options) { o.AfterTask = "nap" },
			diag.EMAN003, "--lifecycle-after-task: 'nap' is not one of exit, sleep"},
		{"unreadable prompt file", "name: t\nversion: \"1\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n  system_prompt_file: prompt.md\n",
			"script_version: 1\nrules: []\n", nil, diag.ERUN009, "prompt.md could not be read: no such file or directory"},
		{"missing script", base, "", nil, diag.ERUN009, "script.yaml could not be read: no such file or directory"},
		{"missing artifact", base + "artifacts:\n  - {name: local/grep, version: 1.0.0}\n", "script_version: 1\nrules: []\n", nil,
			diag.ERUN008, "missing artifacts: local/grep@1.0.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.manifest != "" {
				os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(c.manifest), 0o644)
			}
			if c.script != "" {
				os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(c.script), 0o644)
			}
			home := t.TempDir()
			opts := Options{ManifestPath: filepath.Join(dir, "murmur.yaml"), Getenv: testEnv(map[string]string{"MURMUR_HOME": home}), Cwd: dir}
			if c.mutate != nil {
				c.mutate(dir, &opts)
			}
			_, err := Prepare(opts)
			d, ok := diag.As(err)
			if !ok || d.Code != c.code || !strings.HasSuffix(d.Msg, c.msg) {
				t.Errorf("Prepare = %v, want %s …%s", err, c.code, c.msg)
			}
			if _, err := os.Stat(filepath.Join(dir, ".murmur")); !os.IsNotExist(err) {
				t.Errorf("a refused launch left %s/.murmur (MAN-4)", dir)
			}
		})
	}
}

func TestLaunchTask_SES4(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, ""), "script_version: 1\nrules: []\n")
	os.WriteFile(filepath.Join(dir, "brief.txt"), []byte("from a file"), 0o644)
	l := prepareIn(t, dir, ptr("brief.txt"), nil)
	if !l.HasTask || l.TaskText != "from a file" {
		t.Errorf("--task file: %q", l.TaskText)
	}
	l = prepareIn(t, dir, ptr("just text"), nil)
	if l.TaskText != "just text" {
		t.Errorf("--task text: %q", l.TaskText)
	}
	os.WriteFile(filepath.Join(dir, "input.txt"), []byte("from input.txt"), 0o644)
	l = prepareIn(t, dir, nil, func(o *Options) { o.Acceptance = "none" })
	if l.TaskText != "from input.txt" {
		t.Errorf("none without --task: %q", l.TaskText)
	}
	os.WriteFile(filepath.Join(dir, "task.md"), []byte("from task.md"), 0o644)
	l = prepareIn(t, dir, nil, func(o *Options) { o.Acceptance = "none" })
	if l.TaskText != "from task.md" {
		t.Errorf("task.md first: %q", l.TaskText)
	}
	l = prepareIn(t, dir, nil, nil)
	if l.HasTask {
		t.Error("single without --task read task.md")
	}
}

func TestSubprocessEnv_SES10(t *testing.T) {
	env := subprocessEnv(
		[]string{"PATH=/bin", "OPENAI_API_KEY=k", "GH_TOKEN=t", "MY_PASSWORD_X=p", "AWS_REGION=r", "KEEP_TOKEN=y",
			"MURMUR_FORMATION_ID=frm", "MURMUR_SPAWNER=s", "SECRETIVE=no", "DROP_ME=1", "HOME=/root"},
		map[string]string{"FROM_DOTENV": "1", "PATH": "/not"},
		[]string{"DROP_*"}, []string{"KEEP_*"},
		map[string]string{"HOME": "/rec/home", "TMPDIR": "/rec/tmp", "MURMUR_SESSION_ID": "ses_x", "MURMUR_CAPSULE_URL": "http://127.0.0.1:1"},
	)
	got := strings.Join(env, " ")
	want := "FROM_DOTENV=1 HOME=/rec/home KEEP_TOKEN=y MURMUR_CAPSULE_URL=http://127.0.0.1:1 MURMUR_SESSION_ID=ses_x PATH=/bin SECRETIVE=no TMPDIR=/rec/tmp"
	if got != want {
		t.Errorf("env = %s\nwant  %s", got, want)
	}
}
