package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/credential"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// A formation member whose callee's door answers with a card re-signed by a
// key other than the formation's refuses the call before sending anything
// (A2A §8.4): `mur run` as member "lead", the test acting as its launcher —
// it writes the credentials line with the formation's card key and an
// address line naming an impostor door for "worker", a real door whose card
// is signed with another key.
func TestMemberRefusesImpostorCard(t *testing.T) {
	t.Parallel()
	_, cardKey, _ := ed25519.GenerateKey(nil)
	verifyPub, verifyKey, _ := ed25519.GenerateKey(nil)
	_, otherKey, _ := ed25519.GenerateKey(nil)
	frm := a2a.NewID(a2a.PrefixFormation)

	// The impostor: a real door, its card signed with another key.
	reg, err := tasktable.New(tasktable.Config{Acceptance: tasktable.ModeQueue, QueueDepth: 4})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	impostorURL := "http://" + ln.Addr().String()
	imp, err := door.New(door.Config{Registry: reg, Card: agentcard.Config{Name: "worker", Version: "0.1.0", URL: impostorURL},
		Acceptance: tasktable.ModeQueue, PeerTasks: true, SessionID: a2a.NewID(a2a.PrefixSession),
		CardKey: otherKey, CardKeyID: agentcard.FormationKeyPrefix + frm})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- imp.Serve(ln) }()
	t.Cleanup(func() {
		_ = imp.Shutdown(context.Background())
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("impostor Serve = %v", err)
		}
	})
	tok, err := credential.Mint(verifyKey, credential.MemberClaims(frm, "lead", "worker"))
	if err != nil {
		t.Fatal(err)
	}

	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: lead\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n  max_turns: 4\n" +
			"capabilities:\n  network:\n    allow: [localhost]\ntrace:\n  capture: content\n",
		"script.yaml": "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n" +
			"      - tool_calls: [{name: call-member, input: {member: worker, task: \"{{task}}\"}}]\n      - text: \"lead gave up\"\n",
	})
	chR, chW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	creds, _ := json.Marshal(map[string]any{"type": "credentials", "formation_id": frm, "member": "lead",
		"verify_key": base64.RawURLEncoding.EncodeToString(verifyPub),
		"launcher":   map[string]any{"pid": os.Getpid(), "process_start": ""},
		"callees":    []string{"worker"}, "tokens": map[string]string{"worker": string(tok)},
		"card_key": base64.RawURLEncoding.EncodeToString(cardKey.Seed())})
	addrs, _ := json.Marshal(map[string]any{"type": "addresses", "callees": []map[string]string{
		{"name": "worker", "url": impostorURL, "session_id": a2a.NewID(a2a.PrefixSession)}}})
	if _, err := chW.Write(append(append(append(creds, '\n'), addrs...), '\n')); err != nil {
		t.Fatal(err)
	}
	cmd := e.command("--capsule", ".", "--json", "--task", "build the parser")
	cmd.Env = append(cmd.Env, "MURMUR_FORMATION_ID="+frm, "MURMUR_FORMATION_CHANNEL=3", "MURMUR_FORMATION_LIFELINE=4")
	cmd.ExtraFiles = []*os.File{chR, lifeR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() { chW.Close(); lifeW.Close() })
	stdout, stderr, code := testmur.Exec(t, cmd)
	chR.Close()
	lifeR.Close()
	var ready struct {
		RecordsDir string `json:"records_dir"`
	}
	first, _, _ := strings.Cut(stdout, "\n")
	if err := json.Unmarshal([]byte(first), &ready); err != nil || ready.RecordsDir == "" {
		t.Fatalf("mur run exited %d; stdout %q stderr %q", code, stdout, stderr)
	}
	trace, err := os.ReadFile(filepath.Join(ready.RecordsDir, "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := "'worker' was not called: the Agent Card at " + impostorURL + " does not verify against formation " + frm + "'s card key"
	if !strings.Contains(string(trace), want) {
		t.Errorf("the lead's trace does not hold the refusal %q:\n%s", want, trace)
	}
	if n := reg.Counts(); len(n) != 0 {
		t.Errorf("the impostor door holds tasks %v, want none: nothing may be sent", n)
	}
}
