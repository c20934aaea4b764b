package launcher

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/murhome"
)

// retention bounds the project's formation directories by the entry member's
// trace.retain (RET-1..4): run once per launch after every started member is
// reaped. It prints one line per removal, newest first.
func (l *launch) retention() {
	facts := l.f.Entry().Facts
	maxSessions, maxAge := facts.RetainMaxSessions, facts.RetainMaxAge
	if maxSessions <= 0 && maxAge <= 0 {
		return // none is removed without trace.retain
	}
	root := murhome.FormationsDir(l.cfg.Home)
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	running := map[string]bool{}
	if l.cfg.RunningFormations != nil {
		if running, err = l.cfg.RunningFormations(); err != nil {
			return // unreadable running records: every formation counts as running (RET-3)
		}
	}
	project := l.f.Roster.Dir
	if real, err := filepath.EvalSymlinks(project); err == nil {
		project = real
	}
	type owned struct {
		id     string
		marker murhome.Marker
	}
	var mine []owned
	for _, e := range ents {
		id := e.Name()
		if !e.IsDir() || !a2a.ValidID(id, a2a.PrefixFormation) {
			continue
		}
		m, ok := murhome.ReadMarker(filepath.Join(root, id))
		if !ok || m.ProjectDir != project || m.LauncherPID <= 0 {
			continue // no marker, a partial one or another project's: never removed
		}
		mine = append(mine, owned{id, m})
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].id > mine[j].id }) // newest first
	now := time.Now()
	for i, o := range mine {
		overCount := maxSessions > 0 && i >= maxSessions
		at, _ := a2a.IDTime(o.id, a2a.PrefixFormation)
		overAge := maxAge > 0 && now.Sub(at) > maxAge
		if !overCount && !overAge {
			continue
		}
		if o.id >= l.creds.formationID || running[o.id] || l.launcherAlive(o.marker) {
			continue
		}
		dir := filepath.Join(root, o.id)
		group := murhome.Group(l.cfg.Home, dir)
		if err := os.RemoveAll(dir); err != nil {
			continue
		}
		_ = os.RemoveAll(group)
		reason := "max_sessions"
		if overAge {
			reason = "max_age"
		}
		l.stderr.line("[mur run] ", fmt.Sprintf("retention: removed formation %s (%s)", o.id, reason))
	}
}

// launcherAlive reports whether a marker's launcher still runs (RET-3);
// without an Alive check every launcher counts as running.
func (l *launch) launcherAlive(m murhome.Marker) bool {
	if m.LauncherPID == l.pid {
		return false // this launcher made it in an earlier launch only if the pid was reused
	}
	if l.cfg.Alive == nil {
		return true
	}
	return l.cfg.Alive(m.LauncherPID, m.LauncherStart)
}
