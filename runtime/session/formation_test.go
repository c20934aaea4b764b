package session

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

func TestFormationLifelineEnds_LIFE3_TRC1(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, ""), "script_version: 1\nrules: []\n")
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	frm := a2a.NewID(a2a.PrefixFormation)
	chFD, chW := testmur.Pipe(t)
	lifeFD, lifeW := testmur.Pipe(t)
	line, _ := json.Marshal(map[string]any{"type": "credentials", "formation_id": frm, "member": "worker",
		"verify_key": base64.RawURLEncoding.EncodeToString(pub), "launcher": map[string]any{"pid": 1, "process_start": "1"},
		"callees": []string{}, "tokens": map[string]string{}})
	if _, err := chW.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	env := testEnv(map[string]string{"MURMUR_FORMATION_ID": frm, "MURMUR_FORMATION_CHANNEL": strconv.Itoa(chFD),
		"MURMUR_FORMATION_LIFELINE": strconv.Itoa(lifeFD)})
	l := prepareIn(t, dir, ptr("work"), func(o *Options) { o.Getenv = env })
	if l.Member == nil || !l.Member.Lifeline || len(l.Warnings) != 0 {
		t.Fatalf("member = %+v, warnings %v", l.Member, l.Warnings)
	}
	started := make(chan struct{}, 1) // buffered: one call
	l.Drivers["primary"] = blockingDriver(started)
	stderr := &syncBuf{}
	s := startIn(t, l, nil, stderr)
	done := make(chan Result, 1) // buffered: Run's goroutine never blocks
	go func() { done <- s.Run() }()
	<-started
	lifeW.Close() // the launcher ends the formation
	res := <-done
	if res.ExitStatus != StatusFormationEnded || BareReason(res.Text) != "formation ended" {
		t.Errorf("Run = %+v", res)
	}
	if got := stderr.String(); got != "[capsule-runtime] formation lifeline closed — the formation has ended; cancelling live tasks and ending the session\n" {
		t.Errorf("stderr = %q", got)
	}
	recs := readTrace(t, s)
	if got, want := types(recs), "session_start,task_start,formation_ended,task_canceled,task_end,session_end"; got != want {
		t.Errorf("trace = %s, want %s (TRC-2: formation_ended first)", got, want)
	}
	if got := resultTxt(t, s); got != "canceled: formation ended" {
		t.Errorf("result.txt = %q", got)
	}
	start := string(recs[0].Raw)
	if !strings.Contains(start, `"formation_id":"`+frm+`","formation_member":"worker","formation_callees":[]`) {
		t.Errorf("session_start lacks TRC-1 fields: %s", start)
	}
	if fe := lines[trace.FormationEnded](recs)[0]; fe.ParentID == nil || *fe.ParentID != recs[0].EventID || of[trace.FormationEnded](t, recs)[0].FormationID != frm {
		t.Errorf("formation_ended = %s", fe.Raw)
	}
	if se := of[trace.SessionEnd](t, recs)[0]; se.ExitStatus != "formation_ended" {
		t.Errorf("session_end = %+v", se)
	}
}
