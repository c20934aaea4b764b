package spawn

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/murmur-go/mur/runtime/wire"
)

// The variables a delegated child is launched with (tools.md DLG-3).
const (
	EnvSpawner  = "MURMUR_SPAWNER"
	EnvLifeline = "MURMUR_SPAWNER_LIFELINE"
)

// Handle is MURMUR_SPAWNER: where the child reports, and under which
// delegation (DLG-3; compact JSON, these keys in this order).
type Handle struct {
	SessionID    string `json:"session_id"`
	ContextID    string `json:"context_id"`
	DelegationID string `json:"delegation_id"`
	URL          string `json:"url"`
	Trust        string `json:"trust"`
}

// The shapes of the ids a handle names (capsule.md: a prefix and 32 lower
// hex digits).
var (
	sessionID    = regexp.MustCompile(`^ses_[0-9a-f]{32}$`)
	delegationID = regexp.MustCompile(`^dlg_[0-9a-f]{32}$`)
)

// parseHandle reads MURMUR_SPAWNER; why completes E-RUN-020's message and
// never quotes the value.
func parseHandle(v string) (h Handle, why string) {
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil || dec.More() {
		return h, "it is not one JSON object with session_id, context_id, delegation_id, url and trust"
	}
	switch {
	case !sessionID.MatchString(h.SessionID):
		return h, "its session_id is not a session id"
	case !delegationID.MatchString(h.DelegationID):
		return h, "its delegation_id is not a delegation id"
	case h.Trust != "trusted" && h.Trust != "untrusted":
		return h, "its trust is neither trusted nor untrusted"
	}
	u, err := url.Parse(h.URL)
	if err != nil || u.Scheme != "http" || u.Port() == "" || u.Path != "" && u.Path != "/" ||
		!(u.Hostname() == "127.0.0.1" || u.Hostname() == "::1" || u.Hostname() == "localhost") {
		return h, "its url is not a loopback http://host:port door"
	}
	return h, ""
}

// String is the handle as compact JSON, MURMUR_SPAWNER's value.
func (h Handle) String() string {
	b, _ := json.Marshal(h) // strings only: never fails
	return string(b)
}

// readHello checks the spawner hello against the handle's delegation.
func readHello(line []byte, delegation string) (h wire.SpawnerHello, why string) {
	h, err := wire.ParseSpawnerHello(line)
	if err != nil {
		return h, "its first line is not the spawner's"
	}
	switch {
	case h.DelegationID != delegation:
		return h, "its first line names another delegation than " + EnvSpawner
	case h.Depth < 1 || h.Depth > MaxDepth:
		return h, fmt.Sprintf("its first line gives depth %d, outside 1–%d", h.Depth, MaxDepth)
	case h.CompletionToken == "" || h.DoorToken == "":
		return h, "its first line carries no tokens"
	}
	return h, ""
}
