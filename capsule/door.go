package capsule

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/runtime/credential"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/session"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/wire"
)

// serveDoor builds the session's door (door.md) on ln and serves it. tokens
// are the door tokens, operator first, under network.authentication.
func serveDoor(sess *session.Session, l *session.Launch, ln net.Listener, url, home string, maxConns int) (*door.Server, []door.Token, error) {
	m := l.Manifest
	// A2A §8.4: the door signs its cards — a formation member's with the
	// formation's card key, any other with the operator's key in
	// $MURMUR_HOME, made on first use; without either it signs nothing.
	var cardKey ed25519.PrivateKey
	var cardKeyID string
	var err error
	switch mem := l.Member; {
	case mem != nil && mem.Launched() && mem.CardKey != nil:
		// A formation member signs with the formation's card key, its kid
		// naming the formation.
		cardKey, cardKeyID = mem.CardKey, agentcard.FormationKeyPrefix+mem.FormationID
	case home != "":
		if cardKey, err = murhome.CardKey(home); err != nil {
			return nil, nil, fmt.Errorf("the card signing key: %w", err)
		}
		cardKeyID = agentcard.KeyID(agentcard.OperatorKeyPrefix, cardKey.Public().(ed25519.PublicKey))
	}
	var auth *door.Auth
	var tokens []door.Token
	if a := m.Network.Authentication; a != nil {
		var declared []door.Credential
		for _, c := range a.Credentials {
			declared = append(declared, door.Credential{Name: c.Name, Scopes: c.Scopes})
		}
		if tokens, err = door.MintTokens(declared); err != nil {
			return nil, nil, fmt.Errorf("mint door tokens: %w", err)
		}
		auth = &door.Auth{Realm: m.Name, Tokens: tokens}
		if link := l.Link; link != nil {
			// The spawner reaches a delegated child's authenticated door with
			// the token it handed over on the lifeline (tools.md
			// DLG-3): to hand it its task and read it. It is no door token
			// of the session's own: no running record or mur token shows it.
			auth.Tokens = append(append([]door.Token(nil), tokens...), door.Token{Credential: "spawner",
				Scopes: []string{a2a.MethodSendMessage, a2a.MethodGetTask, a2a.MethodCancelTask}, Value: credential.Token(link.DoorToken)})
		}
		if mem := l.Member; mem != nil && mem.Launched() {
			auth.Formation = &door.Formation{ID: mem.FormationID, Member: mem.Name, PublicKey: mem.PublicKey}
		}
	}
	var toolNames []string
	for _, a := range m.Artifacts {
		if a.Runtime == "tool" {
			toolNames = append(toolNames, a.Name)
		}
	}
	var completions door.Completions
	if hub := sess.Hub(); hub != nil {
		completions = hub // DLG-7: a child's completion reaches its delegation
	}
	var peerFiles door.PeerFiles
	if p := sess.Tools().PeerFiles(); p != nil {
		peerFiles = p // PFILE-5: GET /resources/peer/<handle>
	}
	srv, err := door.New(door.Config{
		Completions: completions,
		PeerFiles:   peerFiles,
		Registry:    sess.Registry(),
		Card: agentcard.Config{Name: m.Name, Version: m.Version, URL: url, Tools: toolNames,
			Shell: m.Capabilities.Shell != nil, Network: len(m.Capabilities.Network.Allow) > 0},
		Acceptance: sess.Registry().Acceptance(),
		PeerTasks:  m.Exports.PeerTasks.Accept,
		SessionID:  sess.ID(),
		Auth:       auth,
		CardKey:    cardKey,
		CardKeyID:  cardKeyID,
		// The other load bounds (body budget, body timeout) keep door.go's
		// defaults (docs/door.md).
		MaxConnections: maxConns,
		// THR-5: a harness capsule refuses x-murmur-forget-session with its own text.
		HarnessSession: m.Inference.Process(),
		// SSE-6: stream/watch's connection-ack names the conversation mode.
		Threaded: m.Inference.Process() && m.Lifecycle.Conversation == "threaded",
		// The session's families, the Go and process collectors,
		// on the door's own registry (docs/metrics.md).
		Collectors: sess.Metrics().Collectors(),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("build the door: %w", err)
	}
	go func() { _ = srv.Serve(ln) }() // ends at shutdown, which Serve always calls
	return srv, tokens, nil
}

// shutdown stops the door once the session has ended (SES-8), waiting at
// most 5 s for its connections.
func shutdown(srv *door.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
}

// announce prints the readiness line (--json, CLI-4) or the human lines
// (CLI-3) once the door serves.
func announce(w io.Writer, jsonOut, verbose bool, sess *session.Session, l *session.Launch, url string) {
	m := l.Manifest
	auth := m.Network.Authentication != nil
	if jsonOut {
		line := wire.Ready{Name: m.Name, PID: os.Getpid(), RecordsDir: sess.RecordsDir(), SessionID: sess.ID(),
			URL: url, Version: m.Version, Workdir: sess.Workdir()}
		if auth {
			line.Auth = "bearer"
		}
		if l.Member != nil {
			line.FormationID = l.Member.FormationID
		}
		_, _ = w.Write(line.Line())
		return
	}
	fmt.Fprintf(w, "murmur: url %s\n", url)
	if auth {
		fmt.Fprintf(w, "murmur: auth bearer (mur token %s)\n", sess.ID())
	}
	fmt.Fprintf(w, "session: %s\n", sess.ID())
	if l.Member != nil && l.Member.Name != "" && !l.HasTask {
		// A formation's entry without a task is door mode: say that it is
		// ready, where, and how it ends.
		fmt.Fprintf(w, "ready: formation %s takes tasks at %s (its entry, %s), one after another, until mur stop %s or Ctrl-C\n",
			l.Member.FormationID, url, l.Member.Name, l.Member.FormationID)
	}
	if verbose {
		fmt.Fprintf(w, "workdir: %s\nrecords: %s\nmanifest: %s v%s\n", sess.Workdir(), sess.RecordsDir(), m.Name, m.Version)
		if m.Inference.Process() { // PROC-20
			fmt.Fprintf(w, "harness: %s %s\n", m.Inference.HarnessName(), l.HarnessBinary)
		} else {
			d := m.Inference.Driver
			fmt.Fprintf(w, "driver: %s (%s)\n", d.Kind, d.Model)
		}
		if l.Member != nil {
			fmt.Fprintf(w, "formation: %s\n", l.Member.FormationID)
		}
	}
}

// writeRunning writes the running record once the door serves (SES-6,
// FCLI-5); a failure is W-SEC-023 only.
func writeRunning(stderr io.Writer, sess *session.Session, l *session.Launch, home, url string, tokens []door.Token) {
	m := l.Manifest
	rec := &murhome.Running{SessionID: sess.ID(), URL: url, PID: os.Getpid(), Name: m.Name, Version: m.Version,
		Workdir: sess.Workdir(), RecordsDir: sess.RecordsDir(), StartedAt: time.Now().UTC().Truncate(time.Second)}
	rec.ProcessStart, _ = murhome.StartTime(os.Getpid())
	if r := l.Resumed; r != nil {
		rec.ResumedFrom = r.SessionID
	}
	for _, t := range tokens {
		rec.Tokens = append(rec.Tokens, murhome.Token{Name: t.Credential, Value: string(t.Value)})
	}
	if mem := l.Member; mem != nil {
		rec.FormationID = mem.FormationID
		rec.FormationLifeline = mem.Lifeline
		if mem.Launched() {
			rec.FormationLauncher = &murhome.Launcher{PID: mem.Launcher.PID, ProcessStart: mem.Launcher.ProcessStart}
		}
	}
	if link := l.Link; link != nil {
		rec.SpawnedBy = link.SessionID // FCLI-5: mur stop <frm> never signals a delegated child
	}
	if err := murhome.WriteRunning(home, rec); err != nil {
		if d, ok := err.(interface{ Render() string }); ok {
			fmt.Fprint(stderr, d.Render())
			sess.Bootstrap(d.Render())
		}
	}
}

// removeRunning removes the running record at session end (SES-8).
func removeRunning(home, ses string) { _ = murhome.RemoveRunning(home, ses) }

var (
	_ door.Completions = (*spawn.Hub)(nil)
)
