package wire

import (
	"encoding/json"
	"errors"
)

// TypeSpawner is the spawner hello's type.
const TypeSpawner = "spawner"

// MaxSpawnerHello bounds the spawner hello line.
const MaxSpawnerHello = 4 << 10

// SpawnerHello is the one line a parent writes on a delegated child's
// lifeline before it starts the child: what the child needs that no
// variable may carry. The completion token lets the child post its
// completion to an authenticated parent door, the door token lets the
// parent reach an authenticated child's door; neither reaches argv, the
// environment, a file or a trace. After this line the parent writes
// nothing: only EOF means the spawner ended (tools.md DLG-3).
type SpawnerHello struct {
	Type            string `json:"type"` // TypeSpawner
	DelegationID    string `json:"delegation_id"`
	Depth           int    `json:"depth"` // the child's: 1 below a top-level capsule
	CompletionToken string `json:"completion_token"`
	DoorToken       string `json:"door_token"`
}

// Line is h as the spawner hello, with its type set.
func (h SpawnerHello) Line() []byte {
	h.Type = TypeSpawner
	return line(h)
}

// ErrNotSpawnerHello is ParseSpawnerHello's error for a line that is not
// JSON of the spawner's type.
var ErrNotSpawnerHello = errors.New("not the spawner's hello")

// ParseSpawnerHello decodes the spawner hello. The caller checks its
// delegation, depth and tokens.
func ParseSpawnerHello(b []byte) (SpawnerHello, error) {
	var h SpawnerHello
	if err := json.Unmarshal(b, &h); err != nil || h.Type != TypeSpawner {
		return h, ErrNotSpawnerHello
	}
	return h, nil
}
