package launcher

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/wire"
)

// ProbeInterval is how often a peer's door is probed (READY-2).
const ProbeInterval = 100 * time.Millisecond

// ReadyTimeout is how long each member has from its own spawn (READY-3).
const ReadyTimeout = 180 * time.Second

// failure is why a member refused the launch (READY-4); withTail adds its
// last stderr lines.
type failure struct {
	reason   string
	withTail bool
}

// awaitReady waits for peer p's readiness line and then for its door to answer
// as the session it reported (READY-1..4). It returns the readiness, or the
// failure; ctx's end (another member failed, a signal) returns neither.
func (l *launch) awaitReady(ctx context.Context, p *proc) (*wire.Ready, *failure) {
	deadline := time.NewTimer(time.Until(p.spawned.Add(l.readyTimeout)))
	defer deadline.Stop()
	var line string
	select {
	case s, ok := <-p.firstLine:
		if !ok { // stdout closed with no line: wait for the exit
			select {
			case <-p.exited:
				return nil, &failure{reason: fmt.Sprintf("its process exited with %s before reporting", p.exitText()), withTail: true}
			case <-deadline.C:
				return nil, &failure{reason: fmt.Sprintf("it did not report within %s", secs(l.readyTimeout))}
			case <-ctx.Done():
				return nil, nil
			}
		}
		line = s
	case <-p.exited:
		<-p.outDone // the line may still be in the pipe
		s, ok := <-p.firstLine
		if !ok {
			return nil, &failure{reason: fmt.Sprintf("its process exited with %s before reporting", p.exitText()), withTail: true}
		}
		line = s
	case <-deadline.C:
		return nil, &failure{reason: fmt.Sprintf("it did not report within %s", secs(l.readyTimeout))}
	case <-ctx.Done():
		return nil, nil
	}
	r, f := l.readLine(line)
	if f != nil {
		return nil, f
	}
	probe, err := l.prober(p, r)
	if err != nil {
		return nil, &failure{reason: "its first line is not a readiness line: " + err.Error()}
	}
	tick := time.NewTicker(ProbeInterval)
	defer tick.Stop()
	lastErr := "no probe was answered"
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := probe(pctx)
		cancel()
		if err == nil {
			return r, nil
		}
		if ctx.Err() != nil {
			return nil, nil
		}
		lastErr = err.Error()
		select {
		case <-tick.C:
		case <-p.exited:
			return nil, &failure{reason: fmt.Sprintf("its process reported and then exited with %s before its door answered", p.exitText()), withTail: true}
		case <-deadline.C:
			return nil, &failure{reason: fmt.Sprintf("its door at %s did not answer as session %s within %s; the last probe said: %s", r.URL, r.SessionID, secs(l.readyTimeout), lastErr)}
		case <-ctx.Done():
			return nil, nil
		}
	}
}

// readLine checks a peer's first line (READY-1, READY-4).
func (l *launch) readLine(line string) (*wire.Ready, *failure) {
	r, err := wire.ParseReady([]byte(line))
	if err != nil {
		return nil, &failure{reason: "its first line is not a readiness line: " + err.Error()}
	}
	if !a2a.ValidID(r.SessionID, a2a.PrefixSession) {
		return nil, &failure{reason: "its first line is not a readiness line: it names no session_id"}
	}
	if r.URL == "" {
		return nil, &failure{reason: "it reported no door"}
	}
	if u, err := url.Parse(r.URL); err != nil || u.Scheme != "http" || u.Host == "" || u.Port() == "" {
		return nil, &failure{reason: fmt.Sprintf("its first line is not a readiness line: its url '%s' is not a door URL", r.URL)}
	}
	switch r.FormationID {
	case l.creds.formationID:
	case "":
		return nil, &failure{reason: "it reported no formation instead of " + l.creds.formationID}
	default:
		return nil, &failure{reason: fmt.Sprintf("it reported formation %s instead of %s", r.FormationID, l.creds.formationID)}
	}
	return &r, nil
}

// prober returns the readiness probe of a peer's door (READY-2): the
// extended card with the launcher token on an authenticated door, the public
// card on a public one; either must carry a capsule extension naming the
// reported session.
func (l *launch) prober(p *proc, r *wire.Ready) (func(context.Context) error, error) {
	tok := ""
	if p.m.Facts.Authenticated {
		tok = string(l.creds.launcher)
	}
	c, err := client.New(client.Config{BaseURL: r.URL, Token: tok})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		var card *a2a.AgentCard
		var err error
		if tok != "" {
			card, err = c.GetExtendedAgentCard(ctx)
		} else {
			card, err = c.Card(ctx)
		}
		if err != nil {
			return probeError(err)
		}
		ext := card.Extension(a2a.ExtensionCapsule)
		if ext == nil {
			return errors.New("the card has no capsule extension")
		}
		if got, _ := ext.Params["sessionId"].(string); got != r.SessionID {
			return fmt.Errorf("the door answered as session '%s'", got)
		}
		return nil
	}, nil
}

// probeError shortens a client error for "the last probe said".
func probeError(err error) error {
	var na *client.NoAnswerError
	if errors.As(err, &na) {
		return errors.New(strings.TrimSpace(na.Err.Error()))
	}
	return err
}

// secs renders a whole-second duration as READY-4 writes it ("180s").
func secs(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	return d.String()
}
