package session

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"time"

	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/wire"
)

// BySpawner is SES-5's cancel reason when the spawner lifeline closes
// (tools.md DLG-6): `canceled: spawner ended`.
const BySpawner = "spawner ended"

// SpawnerEndedNotice is the stderr line a delegated child prints when its
// spawner lifeline closes, after writing spawner_ended (as LIFE-3's).
const SpawnerEndedNotice = "[capsule-runtime] spawner lifeline closed — the capsule that delegated to this one has ended; cancelling live tasks and ending the session"

// spawnerExitGrace is how long after its spawner lifeline closed a child
// exits with 143 wherever its teardown is (as formations.md LIFE-4).
const spawnerExitGrace = 20 * time.Second

// Hub is the session's children (tools.md DLG), for the door's
// door.Completions; nil when the capsule declares no capabilities.spawn.allow.
func (s *Session) Hub() *spawn.Hub { return s.hub }

// buildHub makes the session's Hub when capabilities.spawn.allow is
// non-empty: delegate-task runs on it (DLG-1), and submit-plan's capsule
// steps use the same Hub (PLAN-6).
func (s *Session) buildHub() {
	sp := s.m.Capabilities.Spawn
	if sp == nil || len(sp.Refs) == 0 {
		return
	}
	mur := s.cfg.Mur
	if mur == "" {
		mur, _ = os.Executable()
	}
	depth, formationID := 0, ""
	if s.l.Link != nil {
		depth = s.l.Link.Depth
	}
	if s.l.Member != nil {
		formationID = s.l.Member.FormationID
	}
	var cardKey ed25519.PublicKey // A2A §8.4: a child signs with the home's operator key
	if s.cfg.Home != "" {
		if k, err := murhome.CardKey(s.cfg.Home); err == nil {
			cardKey = k.Public().(ed25519.PublicKey)
		}
	}
	hub, err := spawn.New(spawn.Config{
		CardKey: cardKey,
		Mur:     mur, Parent: s.m, SessionID: s.id, URL: s.url, Workdir: s.workdir, Cwd: s.l.Opts.Cwd,
		Stores: store.Stores{ProjectDir: s.l.Project, Home: s.cfg.Home}, Depth: depth, FormationID: formationID,
		Deadline: s.deadline, Getenv: s.l.Opts.Getenv, NoEnvFile: s.l.Opts.NoEnvFile, LogsDir: s.logsDir,
		Pass: telemetry.EnvNames(), // a child's spans go where the parent's do
	})
	if err != nil {
		s.bootstrap(fmt.Sprintf("delegation is unavailable: %v\n", err))
		return
	}
	s.hub = hub
}

// delegationDeadline is lifecycle.delegation_deadline_secs, after
// MURMUR_DELEGATION_TIMEOUT_SECS (CALL-5, DLG-5).
func (s *Session) delegationDeadline() time.Duration {
	return time.Duration(s.m.Lifecycle.DelegationDeadlineSecs) * time.Second
}

// spawnerEnded is DLG-6: spawner_ended first, the stderr notice, the exit
// timer, then the wind-down of a first SIGTERM. Nothing happens when the
// session is already winding down.
func (s *Session) spawnerEnded(link *spawn.Link) {
	if s.stopping() {
		return
	}
	_, _ = s.tr.Write(trace.SpawnerEnded{SpawnedBy: link.SessionID, DelegationID: link.DelegationID})
	fmt.Fprintln(s.cfg.Stderr, SpawnerEndedNotice)
	if exit := s.l.Exit; exit != nil {
		time.AfterFunc(spawnerExitGrace, func() { exit(143) })
	}
	s.stop(BySpawner, true)
}

// reportCompletion is DLG-7 at the session's end: a delegated child copies
// its last result into its runtime directory, writes completion.json in its
// records directory and posts it to its parent's door.
func (s *Session) reportCompletion(res Result) {
	link := s.l.Link
	c := wire.Completion{CapsuleName: s.m.Name, CapsuleVersion: s.m.Version, SessionID: s.id,
		Status: wire.StatusOK, Workdir: s.workdir, DurationMS: elapsedMS(s.start, s.now())}
	if res.ExitStatus != StatusOK {
		c.Status = wire.StatusError
		c.Detail = "session ended " + res.ExitStatus
		if r := BareReason(res.Text); r != "" {
			c.Detail += ": " + r
		}
	}
	if b, err := os.ReadFile(filepath.Join(s.recordsDir, "out", "result.txt")); err == nil {
		if err := os.WriteFile(filepath.Join(s.workdir, spawn.ResultPath(s.id)), b, 0o600); err == nil {
			c.ResultPath = spawn.ResultPath(s.id)
		}
	}
	// OTEL-1: the completion carries the trace context of the task it
	// completes, so the parent's side of the delegation joins that trace.
	s.mu.Lock()
	ctx := oteltrace.ContextWithSpanContext(context.Background(), s.lastSpan)
	s.mu.Unlock()
	if err := link.Report(ctx, s.recordsDir, c); err != nil {
		s.bootstrap(fmt.Sprintf("completion for delegation %s: %v\n", link.DelegationID, err))
	}
}
