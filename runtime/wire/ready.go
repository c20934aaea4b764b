package wire

import "encoding/json"

// Ready is the readiness line a capsule prints on stdout under --json once
// its door serves: keys sorted, auth only on an authenticated door,
// formation_id only on a formation member (capsule.md CLI-4).
type Ready struct {
	Auth        string `json:"auth,omitzero"` // "bearer"
	FormationID string `json:"formation_id,omitzero"`
	Name        string `json:"name"`
	PID         int    `json:"pid"`
	RecordsDir  string `json:"records_dir"`
	SessionID   string `json:"session_id"`
	URL         string `json:"url"`
	Version     string `json:"version"`
	Workdir     string `json:"workdir"`
}

// Line is r as the readiness line, '\n'-terminated.
func (r Ready) Line() []byte { return line(r) }

// ParseReady decodes a readiness line (with or without its '\n'); its error
// is the JSON decoder's.
func ParseReady(b []byte) (Ready, error) {
	var r Ready
	err := json.Unmarshal(b, &r)
	return r, err
}
