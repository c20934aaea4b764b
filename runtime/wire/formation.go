package wire

import "encoding/json"

// Formation is the formation line a launcher prints on stdout under --json
// once every peer is ready and before the entry starts (formations.md
// FCLI-1).
type Formation struct {
	Entry       string `json:"entry"`
	FormationID string `json:"formation_id"`
	Peers       []Peer `json:"peers"` // roster order; [] when there are none
}

// Peer is one peer of the formation line.
type Peer struct {
	Name      string `json:"name"`
	PID       int    `json:"pid"`
	SessionID string `json:"session_id"`
	URL       string `json:"url"`
	Workdir   string `json:"workdir"`
}

// Line is f as the formation line, '\n'-terminated.
func (f Formation) Line() []byte { return line(f) }

// ParseFormation decodes a formation line; its error is the JSON decoder's.
func ParseFormation(b []byte) (Formation, error) {
	var f Formation
	err := json.Unmarshal(b, &f)
	return f, err
}
