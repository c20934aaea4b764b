package murhome

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/atomicfile"
	"github.com/murmur-go/mur/runtime/diag"
)

// RunningDir is the running files' directory, $MURMUR_HOME/running.
func RunningDir(home string) string { return filepath.Join(home, "running") }

// RunningPath is the running file of session ses.
func RunningPath(home, ses string) string { return filepath.Join(RunningDir(home), ses+".json") }

// WriteRunning writes r as $MURMUR_HOME/running/<session_id>.json (capsule.md
// SES-6): the directory 0700, the file 0600, replaced atomically so a reader
// never sees half a record. It returns nil or a
// *diag.Diagnostic, W-SEC-023 naming the path and OS error: the session
// prints the warning and carries on (SES-6 "Write failure: W-SEC-023 only").
func WriteRunning(home string, r *Running) error {
	if err := r.validate(); err != nil {
		return diag.SecRunningRecord(RunningPath(home, r.SessionID), err.Error())
	}
	data, err := json.Marshal(r)
	if err != nil {
		return diag.SecRunningRecord(RunningPath(home, r.SessionID), err.Error())
	}
	data = append(data, '\n')
	if err := writeFile(RunningDir(home), RunningPath(home, r.SessionID), data); err != nil {
		path, why := pathErr(err, RunningPath(home, r.SessionID))
		return diag.SecRunningRecord(path, why).WithErr(err)
	}
	return nil
}

// writeFile creates dir 0700 and replaces path in it with data, 0600.
func writeFile(dir, path string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

// pathErr splits an OS error into the path it names and its bare reason.
func pathErr(err error, fallback string) (path, why string) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path, pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.New, le.Err.Error()
	}
	return fallback, err.Error()
}

// ReadRunning reads session ses's running file. A missing record is an error
// matching fs.ErrNotExist; a malformed one is an error naming the path.
func ReadRunning(home, ses string) (*Running, error) {
	return readFile(RunningPath(home, ses))
}

func readFile(path string) (*Running, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decode(path, data)
}

// decode parses and checks one record read from path.
func decode(path string, data []byte) (*Running, error) {
	var r Running
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if filepath.Base(path) != r.SessionID+".json" {
		return nil, fmt.Errorf("%s: names session %s", path, r.SessionID)
	}
	return &r, nil
}

// RemoveRunning deletes session ses's running file; a record already gone is no
// error (the session and `mur stop`/`mur ps` may both remove it).
func RemoveRunning(home, ses string) error {
	err := os.Remove(RunningPath(home, ses))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// ListRunning reads every running file, newest started_at first (ties: the later
// session id first). A missing directory is an empty list. An unreadable
// directory or record is a *diag.Diagnostic E-RUN-028 (capsule.md CLI-11,
// CLI-12); a record removed while listing is skipped.
func ListRunning(home string) ([]*Running, error) {
	dir := RunningDir(home)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		path, why := pathErr(err, dir)
		return nil, diag.RunRecordsUnreadable(path, why).WithErr(err)
	}
	var out []*Running
	for _, e := range ents {
		name := e.Name()
		ses, ok := strings.CutSuffix(name, ".json")
		if !ok || !a2a.ValidID(ses, a2a.PrefixSession) {
			continue // temporary files and strangers
		}
		path := filepath.Join(dir, name)
		r, err := readFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			p, why := pathErr(err, path)
			if !errors.As(err, new(*fs.PathError)) {
				why = strings.TrimPrefix(err.Error(), path+": ")
			}
			return nil, diag.RunRecordsUnreadable(p, why).WithErr(err)
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].StartedAt.Equal(out[j].StartedAt) {
			return out[i].StartedAt.After(out[j].StartedAt)
		}
		return out[i].SessionID > out[j].SessionID
	})
	return out, nil
}
