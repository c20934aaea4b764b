package murhome

import (
	"io/fs"
	"path/filepath"

	"github.com/murmur-go/mur/a2a"
)

// FindSession looks under $MURMUR_HOME home's records for the directory of
// session ses, whatever workdir it ran in (SES-3: records/<workdir>/<ses>),
// and returns it, or "" when there is none. It never descends into a
// session's own directory. `mur trace show <ses_id>` uses it from any
// directory, and `mur view <ses_id>` for an ended session.
func FindSession(home, ses string) string {
	if !a2a.ValidID(ses, a2a.PrefixSession) {
		return ""
	}
	var out string
	_ = filepath.WalkDir(RecordsDir(home), func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if d.Name() == ses {
			out = path
			return fs.SkipAll
		}
		if a2a.ValidID(d.Name(), a2a.PrefixSession) {
			return fs.SkipDir
		}
		return nil
	})
	return out
}

// FindSessionSuffix returns the directories of every session under home's
// records whose id ends with suffix (MatchSuffix's rule), wherever it ran,
// in walk order.
func FindSessionSuffix(home, suffix string) []string {
	var out []string
	_ = filepath.WalkDir(RecordsDir(home), func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if a2a.ValidID(d.Name(), a2a.PrefixSession) {
			if len(MatchSuffix([]string{d.Name()}, suffix)) == 1 {
				out = append(out, path)
			}
			return fs.SkipDir
		}
		return nil
	})
	return out
}
