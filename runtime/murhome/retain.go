package murhome

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// Retention reasons, the `reason` of a `retention` record (capsule.md §6).
const (
	ReasonMaxSessions = "max_sessions"
	ReasonMaxAge      = "max_age"
)

// StoreRecords is the `store` of the retention records this package reports.
const StoreRecords = "records"

// RetainConfig is one retention pass (capsule.md SES-9) over a records group.
type RetainConfig struct {
	Home        string        // $MURMUR_HOME (required)
	Workdir     string        // the accessible workdir (required): names the group and the runtime directories
	Current     string        // the current session's id (required); never removed
	MaxSessions int           // trace.retain.max_sessions; 0 = unset
	MaxAge      time.Duration // trace.retain.max_age; 0 = unset
	Now         time.Time     // the clock for MaxAge; zero = time.Now()
}

// Removal is what one (store, reason) pair retired: the body of one
// `retention` record (`store`, `reason`, `removed`).
type Removal struct {
	Store   string   // always StoreRecords
	Reason  string   // ReasonMaxSessions or ReasonMaxAge
	Removed []string // session ids, newest first
}

// Retain runs retention (capsule.md SES-9), to be called right after the
// session writes session_start. It retires sessions of the current records
// group: MaxSessions keeps that many newest, current included; MaxAge retires
// those whose id time is older than Now-MaxAge; a session over both is
// retired for max_age (as formations.md RET-4). It never removes the current
// session, a later id, or a session whose running record names a process that
// is (or may be) still running; an unreadable running-records directory
// counts every session as running, so nothing is removed. Retiring removes
// the session's records directory and its runtime directory
// <workdir>/.murmur/<ses>/.
//
// It returns one Removal per reason that removed anything, max_sessions
// first; the caller writes one `retention` record per Removal. The error
// joins the failures (a session that could not be removed is not listed);
// the Removals are valid even then.
func Retain(cfg RetainConfig) ([]Removal, error) {
	if cfg.Home == "" || cfg.Workdir == "" || !a2a.ValidID(cfg.Current, a2a.PrefixSession) {
		return nil, errors.New("retain: Home, Workdir and a valid Current session id are required")
	}
	if cfg.MaxSessions <= 0 && cfg.MaxAge <= 0 {
		return nil, nil
	}
	if cfg.Now.IsZero() {
		cfg.Now = time.Now()
	}
	group, err := GroupDir(cfg.Home, cfg.Workdir)
	if err != nil {
		return nil, err
	}
	wd, err := Workdir(cfg.Workdir)
	if err != nil {
		return nil, err
	}
	ids, err := Sessions(group)
	if err != nil {
		return nil, fmt.Errorf("retain: read records group: %w", err)
	}
	ids = withCurrent(ids, cfg.Current)
	if _, err := os.ReadDir(RunningDir(cfg.Home)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("retain: every session counts as running: %w", err)
	}

	byReason := map[string][]string{}
	var errs []error
	for rank, id := range ids { // newest first
		reason := retireReason(cfg, rank, id)
		if reason == "" || id >= cfg.Current || live(cfg.Home, id) {
			continue
		}
		if err := retire(group, wd, id); err != nil {
			errs = append(errs, err)
			continue
		}
		byReason[reason] = append(byReason[reason], id)
	}
	var out []Removal
	for _, r := range []string{ReasonMaxSessions, ReasonMaxAge} {
		if len(byReason[r]) > 0 {
			out = append(out, Removal{Store: StoreRecords, Reason: r, Removed: byReason[r]})
		}
	}
	return out, errors.Join(errs...)
}

// withCurrent ranks the current session even before its directory exists.
func withCurrent(ids []string, cur string) []string {
	for i, id := range ids {
		if id == cur {
			return ids
		}
		if id < cur {
			return append(ids[:i:i], append([]string{cur}, ids[i:]...)...)
		}
	}
	return append(ids, cur)
}

// retireReason says why session id (rank 0 = newest) is over the policy, or "".
func retireReason(cfg RetainConfig, rank int, id string) string {
	if cfg.MaxAge > 0 {
		if t, err := a2a.IDTime(id, a2a.PrefixSession); err == nil && t.Before(cfg.Now.Add(-cfg.MaxAge)) {
			return ReasonMaxAge
		}
	}
	if cfg.MaxSessions > 0 && rank >= cfg.MaxSessions {
		return ReasonMaxSessions
	}
	return ""
}

// live reports whether a running record names session id and its process is,
// or may be, still running. A record that cannot be read counts as live.
func live(home, id string) bool {
	rec, err := ReadRunning(home, id)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	l := rec.Check()
	return l == Alive || l == Unconfirmed
}

// retire removes a session's records and runtime directories.
func retire(group, workdir, id string) error {
	for _, dir := range []string{filepath.Join(group, id), filepath.Join(workdir, ".murmur", id)} {
		if err := removeTree(dir); err != nil {
			return fmt.Errorf("retain: remove %s: %w", dir, err)
		}
	}
	return nil
}

// removeTree removes dir and everything below it; directories the agent
// made unwritable are made writable (by their owner) and the removal retried.
func removeTree(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
