package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/runtime/murhome"
)

// makeFormationDir holds $MURMUR_HOME/formations/ and …/<frm_id>/ at 0700 and
// writes formation.json at 0600 (LAUNCH-1 step 4, DIR-2). A marker that
// cannot be written is a warning reason, not a failure; a directory that
// cannot be made is an error.
func (l *launch) makeFormationDir() (dir string, markerFault string, err error) {
	root := murhome.FormationsDir(l.cfg.Home)
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
	m, _ := json.Marshal(murhome.Marker{ProjectDir: project, LauncherPID: l.pid, LauncherStart: l.procStart})
	f, err := os.OpenFile(filepath.Join(dir, murhome.MarkerFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
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
