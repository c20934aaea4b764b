package murhome

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// A formation's directory (formations.md DIR-1, DIR-2):
// $MURMUR_HOME/formations/<frm_id>/ holds each peer's workdir, <peer>/, and
// formation.json, the marker naming who owns it. The launcher writes both;
// retention (RET-3) and `mur view` read the marker, and both find a peer's
// records under the records group of the formation directory (Group).

// MarkerFile is the marker's file name inside <frm_id>/.
const MarkerFile = "formation.json"

// Marker is formation.json, a formation directory's ownership marker (DIR-2).
type Marker struct {
	ProjectDir    string `json:"project_dir"` // symlinks resolved
	LauncherPID   int    `json:"launcher_pid"`
	LauncherStart string `json:"launcher_start"` // "" when unreadable
}

// FormationsDir is $MURMUR_HOME/formations.
func FormationsDir(home string) string { return filepath.Join(home, "formations") }

// FormationDir is formation frm's directory, $MURMUR_HOME/formations/<frm>.
func FormationDir(home, frm string) string { return filepath.Join(FormationsDir(home), frm) }

// RecordsDir is the records root, $MURMUR_HOME/records.
func RecordsDir(home string) string { return filepath.Join(home, "records") }

// Group is the records group of dir, as the sessions whose workdir lies in
// it compute theirs (GroupDir): $MURMUR_HOME/records/<dir with symlinks
// resolved, without its leading "/">. A dir that does not resolve (gone, or
// not made yet) is taken as written. A peer's records group is
// Group(home, <formation dir>)/<peer> (RET-1).
func Group(home, dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(RecordsDir(home), strings.TrimPrefix(dir, string(filepath.Separator)))
}

// ReadMarker reads formation directory dir's marker; ok is false when it is
// missing or does not parse. Which fields must be set is the reader's rule
// (retention removes nothing whose marker lacks its project or launcher).
func ReadMarker(dir string) (m Marker, ok bool) {
	b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if err != nil {
		return Marker{}, false
	}
	if json.Unmarshal(b, &m) != nil {
		return Marker{}, false
	}
	return m, true
}
