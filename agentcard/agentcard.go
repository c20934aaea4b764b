// Package agentcard builds a door's public and extended Agent Cards (door.md
// §2, CARD-1..7). It is pure: the same Config always gives the same bytes.
//
// # Example
//
//	cards, err := agentcard.Build(agentcard.Config{
//		Name: "coder", Version: "1.2.0", URL: "http://127.0.0.1:41873",
//		Acceptance: agentcard.AcceptQueue, SessionID: "ses_…",
//	})
//	// cards.Public is served at /.well-known/agent-card.json;
//	// cards.Extended is nil on a public door.
package agentcard

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/murmur-go/mur/a2a"
)

// Acceptance is lifecycle.task_acceptance as the card needs it (door.md TASK-7).
type Acceptance string

// The acceptance modes; their values equal runtime/tasktable's Mode values.
const (
	AcceptNone   Acceptance = "none"
	AcceptSingle Acceptance = "single"
	AcceptQueue  Acceptance = "queue"
)

// Streaming reports whether a door under a serves SendStreamingMessage (CARD-2).
func (a Acceptance) Streaming() bool { return a == AcceptSingle || a == AcceptQueue }

// Config is what the cards say about one session's door.
type Config struct {
	Name       string     // capsule name from murmur.yaml (required)
	Version    string     // capsule version (required)
	URL        string     // the door's URL, http://127.0.0.1:<port> (DOOR-1; required)
	Acceptance Acceptance // required
	// PeerTasks is exports.peer_tasks.accept (false when absent).
	PeerTasks bool
	// Authenticated is network.authentication.scheme: bearer (CARD-6).
	Authenticated bool
	SessionID     string   // the session answering here (required)
	Tools         []string // installed tool artifacts the model can call, in manifest order
	Shell         bool     // capabilities.shell.allow is non-empty
	Network       bool     // capabilities.network.allow is non-empty
	// PeerFiles is exports.peer_files is declared: planes lists peer_files
	// (door.md: the capsule extension's planes).
	PeerFiles bool
}

// Cards are the serialized cards of one door.
type Cards struct {
	// Public is the card served at /.well-known/agent-card.json.
	Public []byte
	// Extended is GetExtendedAgentCard's result (CARD-7); nil on a public door.
	Extended []byte
}

// ErrConfig wraps every Config a card cannot be built from.
var ErrConfig = errors.New("agent card config")

// Build renders the door's cards. It fails only on a Config missing a
// required field or naming an unknown acceptance mode.
func Build(c Config) (Cards, error) {
	if err := c.validate(); err != nil {
		return Cards{}, err
	}
	var out Cards
	var err error
	if out.Public, err = json.Marshal(c.card(!c.Authenticated)); err != nil {
		return Cards{}, fmt.Errorf("marshal public card: %w", err)
	}
	if c.Authenticated {
		if out.Extended, err = json.Marshal(c.card(true)); err != nil {
			return Cards{}, fmt.Errorf("marshal extended card: %w", err)
		}
	}
	return out, nil
}

func (c *Config) validate() error {
	switch {
	case c.Name == "":
		return fmt.Errorf("%w: name is empty", ErrConfig)
	case c.Version == "":
		return fmt.Errorf("%w: version is empty", ErrConfig)
	case c.URL == "":
		return fmt.Errorf("%w: url is empty", ErrConfig)
	case c.SessionID == "":
		return fmt.Errorf("%w: session id is empty", ErrConfig)
	}
	switch c.Acceptance {
	case AcceptNone, AcceptSingle, AcceptQueue:
		return nil
	}
	return fmt.Errorf("%w: acceptance %q is not none, single or queue", ErrConfig, c.Acceptance)
}

// Methods lists, in CARD-5's fixed order, every method a door with this
// acceptance serves; an authenticated door adds GetExtendedAgentCard.
func Methods(a Acceptance, authenticated bool) []string {
	var m []string
	if a.Streaming() {
		m = append(m, a2a.MethodSendMessage, a2a.MethodSendStreamingMessage, a2a.MethodSubscribeToTask)
	}
	m = append(m, a2a.MethodStreamWatch, a2a.MethodGetTask, a2a.MethodListTasks, a2a.MethodCancelTask, a2a.MethodSessionStop)
	if authenticated {
		m = append(m, a2a.MethodGetExtendedAgentCard)
	}
	return m
}
