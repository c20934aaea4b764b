package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/tool/artifact"
	"github.com/murmur-go/mur/runtime/trace"
)

// multiToolReply asks for several tools in one turn.
func multiToolReply(calls ...driver.Block) *driver.Response {
	return &driver.Response{Blocks: calls, StopReason: driver.StopToolUse}
}

// toolResults returns the contents of the tool results in a request's last message.
func toolResults(req driver.Request) []string {
	var out []string
	for _, b := range req.Messages[len(req.Messages)-1].Blocks {
		if b.Type == driver.BlockToolResult {
			out = append(out, b.Content)
		}
	}
	return out
}

func nativeArtifact(t *testing.T) *artifact.Native {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "grep-tool")
	script := "#!/bin/sh\nprintf 'config=%s input=' \"$MURMUR_ARTIFACT_CONFIG\"\ncat\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &artifact.Native{Ref: "local/grep-tool", Name: "grep-tool", Description: "greps",
		Schema: json.RawMessage(`{"type":"object","required":["pattern"]}`), Command: bin,
		Config: json.RawMessage(`{"k":1}`), ManifestRaw: []byte("name: grep-tool\n"), RequiredIn: []string{"pattern"}}
}

func TestDispatchRefusalsAndArtifacts_LOOP9_TOOL4(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "capabilities:\n  shell:\n    allow: [bash]\n"), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, ptr("go"), nil)
	l.Artifacts = append(l.Artifacts, nativeArtifact(t))
	bad := driver.ToolUseBlock("c4", "bash", json.RawMessage(`"{not json"`))
	bad.InputError = "invalid character 'n' looking for beginning of object key string"
	fd := &fakeDriver{reply: func(_ context.Context, n int, _ *driver.Request) (*driver.Response, error) {
		if n == 0 {
			return multiToolReply(
				driver.ToolUseBlock("c1", "nosuch", nil),
				driver.ToolUseBlock("c2", "switch-driver", json.RawMessage(`{"driver":"x"}`)),
				driver.ToolUseBlock("c3", "grep-tool", json.RawMessage(`{"path":"."}`)),
				bad,
				driver.ToolUseBlock("c5", "grep-tool", json.RawMessage(`{"pattern":"a<b"}`)),
			), nil
		}
		return textReply("done"), nil
	}}
	l.Drivers["primary"] = fd
	s := startIn(t, l, nil, nil)
	if res := s.Run(); res.ExitStatus != StatusOK {
		t.Fatalf("Run = %+v", res)
	}
	got := toolResults(fd.requests()[1])
	want := []string{
		"tool 'nosuch' is not in this session's inventory",
		"tool 'switch-driver' does not exist in this session: it exists only when the capsule declares control.agent_settings: [inference.driver]",
		"tool 'grep-tool' input lacks required field(s): pattern",
		"invalid tool arguments: invalid character 'n' looking for beginning of object key string",
		"<untrusted-content source=tool:grep-tool>\nconfig={\"k\":1} input={\"pattern\":\"a<b\"}\n</untrusted-content>",
	}
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("tool results =\n%q\nwant\n%q", got, want)
	}
	recs := readTrace(t, s)
	var statuses []string
	for _, r := range of[trace.ToolCall](t, recs) {
		statuses = append(statuses, r.Status)
	}
	if strings.Join(statuses, ",") != "error,error,error,error,ok" {
		t.Errorf("tool_call statuses = %v", statuses)
	}
	tir := of[trace.ToolInputRefused](t, recs)
	if len(tir) != 1 || tir[0].ToolName != "grep-tool" || fmt.Sprint(tir[0].Missing) != "[pattern]" {
		t.Errorf("tool_input_refused = %+v", tir)
	}
	if declared := of[trace.SessionStart](t, recs)[0].ToolsDeclared; !strings.Contains(strings.Join(declared, ","), "grep-tool,bash,session-status") {
		t.Errorf("tools_declared = %v", declared)
	}
}

func TestSessionStatusAndNotice_STATUS1_NOTICE3(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "lifecycle:\n  deadline_notice_secs: 3600\n"), "script_version: 1\nrules: []\n")
	deadline := time.Now().Add(30 * time.Minute).Truncate(time.Second)
	l := prepareIn(t, dir, ptr("status"), func(o *Options) { o.Deadline = &deadline })
	fd := &fakeDriver{reply: func(_ context.Context, n int, _ *driver.Request) (*driver.Response, error) {
		switch n {
		case 0:
			return multiToolReply(driver.ToolUseBlock("c1", "nosuch", nil), driver.ToolUseBlock("c2", "session-status", nil)), nil
		case 1:
			return toolReply("c3", "session-status", `{}`), nil
		}
		return textReply("done"), nil
	}}
	l.Drivers["primary"] = fd
	s := startIn(t, l, nil, nil)
	if res := s.Run(); res.ExitStatus != StatusOK {
		t.Fatalf("Run = %+v", res)
	}
	reqs := fd.requests()
	first := toolResults(reqs[1])
	if strings.Contains(first[0], "Session deadline") {
		t.Error("a refused call carried the deadline notice (NOTICE-3)")
	}
	lines := strings.Split(first[1], "\n")
	notice := lines[len(lines)-1]
	prefix := "Session deadline: the runtime ends this session at " + deadline.UTC().Format("2006-01-02T15:04:05Z") + ", in "
	if !strings.HasPrefix(notice, prefix) || !strings.HasSuffix(notice, " seconds.") {
		t.Errorf("notice line = %q", notice)
	}
	if strings.Contains(toolResults(reqs[2])[0], "Session deadline") {
		t.Error("the notice came twice (NOTICE-3: once per session)")
	}
	body := strings.TrimPrefix(lines[1], "")
	var keys []string
	dec := json.NewDecoder(strings.NewReader(body))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if strings.Join(keys, ",") != "time,turns,keep_working,done_check,context,tokens,spend" {
		t.Errorf("session-status keys = %v (%s)", keys, body)
	}
	if !strings.Contains(body, `"turns":{"used":1,"cap":10}`) || !strings.Contains(body, `"keep_working":"none"`) {
		t.Errorf("session-status = %s", body)
	}
	recs := readTrace(t, s)
	if n := len(of[trace.SessionStatus](t, recs)); n != 2 {
		t.Errorf("session_status records = %d, want 2", n)
	}
	dn := of[trace.DeadlineNotice](t, recs)
	if len(dn) != 1 || dn[0].ToolName != "session-status" || dn[0].MarginSecs != 3600 {
		t.Errorf("deadline_notice = %+v", dn)
	}
}

func TestSwitchDriver_SWD2(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, `  alternates:
    - {name: local, kind: scripted, script: script.yaml}
control:
  agent_settings: [inference.driver]
`), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, ptr("switch"), nil)
	primary := &fakeDriver{reply: func(_ context.Context, n int, _ *driver.Request) (*driver.Response, error) {
		return toolReply("c1", "switch-driver", `{"driver":"local"}`), nil
	}}
	local := &fakeDriver{reply: func(_ context.Context, _ int, _ *driver.Request) (*driver.Response, error) {
		return textReply("served by local"), nil
	}}
	l.Drivers["primary"], l.Drivers["local"] = primary, local
	s := startIn(t, l, nil, nil)
	if res := s.Run(); res.ExitStatus != StatusOK {
		t.Fatalf("Run = %+v", res)
	}
	if len(primary.requests()) != 1 || len(local.requests()) != 1 {
		t.Errorf("calls: primary %d, local %d", len(primary.requests()), len(local.requests()))
	}
	recs := readTrace(t, s)
	cc := lines[trace.ControlChange](recs)
	ca := of[trace.ControlApplied](t, recs)
	if len(cc) != 1 || len(ca) != 1 || ca[0].ChangeID != cc[0].EventID || ca[0].Value != "local" {
		t.Fatalf("control_change = %v, control_applied = %+v", cc, ca)
	}
	if p := cc[0].ParentID; p == nil || *p != lines[trace.Inference](recs)[0].EventID {
		t.Error("control_change is not parented to the turn that made the call")
	}
	if inf := of[trace.Inference](t, recs); inf[1].Choice != "local" {
		t.Errorf("second inference choice = %v", inf[1].Choice)
	}
}

// NOTICE-3: a tool that resolved but refused the call (an allowed shell
// binary that cannot be started) carries no notice; the next tool that runs does.
func TestNoticeSkipsToolRefusal_NOTICE3(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "capabilities:\n  shell:\n    allow: [no-such-binary-here]\nlifecycle:\n  deadline_notice_secs: 3600\n"), "script_version: 1\nrules: []\n")
	deadline := time.Now().Add(30 * time.Minute).Truncate(time.Second)
	l := prepareIn(t, dir, ptr("status"), func(o *Options) { o.Deadline = &deadline })
	fd := &fakeDriver{reply: func(_ context.Context, n int, _ *driver.Request) (*driver.Response, error) {
		switch n {
		case 0:
			return toolReply("c1", "no-such-binary-here", `{"command":"x"}`), nil
		case 1:
			return toolReply("c2", "session-status", `{}`), nil
		}
		return textReply("done"), nil
	}}
	l.Drivers["primary"] = fd
	s := startIn(t, l, nil, nil)
	if res := s.Run(); res.ExitStatus != StatusOK {
		t.Fatalf("Run = %+v", res)
	}
	reqs := fd.requests()
	if refused := toolResults(reqs[1])[0]; !strings.Contains(refused, "could not be started") || strings.Contains(refused, "Session deadline") {
		t.Errorf("refused call's result = %q, want the unstartable refusal without the notice", refused)
	}
	if ran := toolResults(reqs[2])[0]; !strings.Contains(ran, "\nSession deadline: the runtime ends this session at ") {
		t.Errorf("the next tool that ran got no notice:\n%s", ran)
	}
}
