package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Marker is formation.json, a formation directory's ownership marker (DIR-2).
type Marker struct {
	ProjectDir    string `json:"project_dir"` // symlinks resolved
	LauncherPID   int    `json:"launcher_pid"`
	LauncherStart string `json:"launcher_start"` // "" when unreadable
}

// MarkerName is the marker's file name inside <frm_id>/.
const MarkerName = "formation.json"

// FormationsDir is $MURMUR_HOME/formations.
func FormationsDir(home string) string { return filepath.Join(home, "formations") }

// RecordsGroup is the records group of every peer of a formation directory:
// $MURMUR_HOME/records/<formation dir without its leading "/"> (RET-1).
func RecordsGroup(home, formationDir string) string {
	if real, err := filepath.EvalSymlinks(formationDir); err == nil {
		formationDir = real
	}
	return filepath.Join(home, "records", strings.TrimPrefix(formationDir, "/"))
}

// makeFormationDir holds $MURMUR_HOME/formations/ and …/<frm_id>/ at 0700 and
// writes formation.json at 0600 (LAUNCH-1 step 4, DIR-2). A marker that
// cannot be written is a warning reason, not a failure; a directory that
// cannot be made is an error.
func (l *launch) makeFormationDir() (dir string, markerFault string, err error) {
	root := FormationsDir(l.cfg.Home)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", "", err
	}
	if err := os.Chmod(root, 0o700); err != nil {
		return "", "", err
	}
	dir = filepath.Join(root, l.creds.formationID)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", "", err
	}
	project := l.f.Roster.Dir
	if real, err := filepath.EvalSymlinks(project); err == nil {
		project = real
	}
	m, _ := json.Marshal(Marker{ProjectDir: project, LauncherPID: l.pid, LauncherStart: l.procStart})
	f, err := os.OpenFile(filepath.Join(dir, MarkerName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return dir, osText(err), nil
	}
	_, werr := f.Write(append(m, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return dir, osText(werr), nil
	}
	return dir, "", nil
}

// makePeerDir makes a peer's directory with one non-recursive mkdir at 0700;
// anything already at the path is never reused (DIR-1). The failure is
// READY-4's reason.
func makePeerDir(dir string) *failure {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return &failure{reason: fmt.Sprintf("its process could not be started: its directory %s could not be made: %s", dir, osText(err))}
	}
	return nil
}

// osText is the OS's text for err, without the path the os package adds.
func osText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

// readMarker reads a formation directory's marker; ok is false when it is
// missing or does not parse (RET-3: such a directory is never removed).
func readMarker(dir string) (Marker, bool) {
	b, err := os.ReadFile(filepath.Join(dir, MarkerName))
	if err != nil {
		return Marker{}, false
	}
	var m Marker
	if json.Unmarshal(b, &m) != nil || m.ProjectDir == "" || m.LauncherPID <= 0 {
		return Marker{}, false
	}
	return m, true
}
