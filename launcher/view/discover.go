package view

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/trace"
)

// finder locates the member sessions of what a view shows (formations.md
// DIR-1, DIR-2, FCLI-5; capsule.md SES-3, SES-6): running records first, then
// the records directories an ended member left. Owned by the poller.
type finder struct {
	home string
	kind Kind
	id   string

	frmDir   string          // $MURMUR_HOME/formations/<frm>, symlinks resolved once it exists
	resolved bool            // frmDir is resolved: its records form, as its members' workdirs are
	project  string          // the entry's workdir (formation.json's project_dir), once known
	checked  map[string]bool // project-group sessions whose session_start was read
	sessDir  string          // a session view's records directory, once found
}

// found is one member session as discovery sees it now.
type found struct {
	id         string
	recordsDir string
	entry      bool
	rec        *murhome.Running // its running record while its process runs, else nil
}

func newFinder(home string, kind Kind, id string) *finder {
	f := &finder{home: home, kind: kind, id: id, checked: map[string]bool{}}
	if kind == KindFormation {
		f.frmDir = murhome.FormationDir(home, id)
	}
	return f
}

// find lists the sessions known now, the peer names with a directory but
// no records yet (starting), and whether anything of it may still run. An
// unreadable running-records directory is E-RUN-028.
func (f *finder) find() (sessions []found, starting []string, live bool, err error) {
	recs, err := murhome.ListRunning(f.home)
	if err != nil {
		return nil, nil, false, err
	}
	if f.kind == KindFormation && !f.resolved {
		// A member's workdir and records group are in records form (symlinks
		// resolved, SES-3): under a linked $MURMUR_HOME the path as written
		// names neither.
		if real, err := filepath.EvalSymlinks(f.frmDir); err == nil {
			f.frmDir, f.resolved = real, true
		}
	}
	seen := map[string]bool{}
	for _, r := range recs {
		if !f.mine(r) {
			continue
		}
		if l := r.Check(); l == murhome.Gone || l == murhome.Reused {
			continue
		}
		entry := f.kind == KindFormation && !within(r.Workdir, f.frmDir)
		if entry && f.project == "" {
			f.project = r.Workdir
		}
		sessions = append(sessions, found{id: r.SessionID, recordsDir: r.RecordsDir, entry: entry, rec: r})
		seen[r.SessionID] = true
		live = true
	}
	if f.kind == KindSession {
		if !live && f.sessDir == "" {
			f.sessDir = murhome.FindSession(f.home, f.id)
		}
		if !live && f.sessDir != "" {
			sessions = append(sessions, found{id: f.id, recordsDir: f.sessDir})
		}
		return sessions, nil, live, nil
	}
	if m, ok := murhome.ReadMarker(f.frmDir); ok {
		if f.project == "" && filepath.IsAbs(m.ProjectDir) {
			f.project = filepath.Clean(m.ProjectDir) // the entry's workdir (DIR-2)
		}
		if murhome.Check(m.LauncherPID, m.LauncherStart) == murhome.Alive {
			live = true
		}
	}
	peerGroup := murhome.Group(f.home, f.frmDir)
	peers, _ := os.ReadDir(f.frmDir)
	for _, p := range peers {
		if !p.IsDir() {
			continue
		}
		ids, _ := murhome.Sessions(filepath.Join(peerGroup, p.Name()))
		if len(ids) == 0 {
			starting = append(starting, p.Name())
		}
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				sessions = append(sessions, found{id: id, recordsDir: filepath.Join(peerGroup, p.Name(), id)})
			}
		}
	}
	for _, e := range f.entrySessions() {
		if !seen[e] {
			seen[e] = true
			sessions = append(sessions, found{id: e, recordsDir: filepath.Join(f.projectGroup(), e), entry: true})
		}
	}
	return sessions, starting, live, nil
}

// mine reports whether a running record belongs to what the view shows.
func (f *finder) mine(r *murhome.Running) bool {
	if f.kind == KindSession {
		return r.SessionID == f.id
	}
	return r.FormationID == f.id
}

// projectGroup is the entry's records group (DIR-1), "" while unknown.
func (f *finder) projectGroup() string {
	if f.project == "" {
		return ""
	}
	return murhome.Group(f.home, f.project)
}

// entrySessions lists the project group's sessions whose session_start
// names this formation: the entry member's (once ended, no running record
// says so). Only sessions minted no earlier than the formation id are read,
// each once its first line is complete.
func (f *finder) entrySessions() []string {
	g := f.projectGroup()
	if g == "" {
		return nil
	}
	ids, _ := murhome.Sessions(g)
	var out []string
	for _, id := range ids {
		if idTime(id) < idTime(f.id) {
			break // newest first: the rest are older than the formation
		}
		if done, ok := f.checked[id]; ok {
			if done {
				out = append(out, id)
			}
			continue
		}
		frm, complete := firstFormationID(filepath.Join(g, id, murhome.TraceFile))
		if complete {
			f.checked[id] = frm == f.id
			if frm == f.id {
				out = append(out, id)
			}
		}
	}
	return out
}

// idTime is the 48-bit millisecond time leading an id's UUIDv7 hex (its
// first 12 hex digits after the prefix), as a string that sorts as the time.
func idTime(id string) string {
	_, h, ok := strings.Cut(id, "_")
	if !ok || len(h) < 12 {
		return ""
	}
	return h[:12]
}

// firstFormationID reads a trace's first line, its session_start, and
// returns its formation_id; complete is false while that line is not whole.
func firstFormationID(path string) (frm string, complete bool) {
	fh, err := os.Open(path)
	if err != nil {
		return "", !errors.Is(err, fs.ErrNotExist)
	}
	defer fh.Close()
	line, err := bufio.NewReaderSize(fh, 64<<10).ReadSlice('\n')
	if err != nil {
		return "", errors.Is(err, bufio.ErrBufferFull) // an endless first line is no session_start of ours
	}
	l, err := trace.ParseLine(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		return "", true
	}
	ss, err := trace.As[trace.SessionStart](l)
	if err != nil {
		return "", true
	}
	return ss.FormationID, true
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
