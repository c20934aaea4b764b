package view

import (
	"os"
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
)

// Target is what one view shows: a formation or a single session.
type Target struct {
	Kind Kind
	ID   string
}

// Locate names the target of `mur view [<frm_id> | <ses_id>]` under
// $MURMUR_HOME home. arg "" is the newest running session's formation, or
// that session when it is in none. Errors are *diag.Diagnostic: E-VIEW-001
// for an argument that is no full frm_/ses_ id; E-VIEW-002 when nothing runs
// (arg "") or the id neither runs nor left records; E-RUN-028 when the
// running records cannot be read.
func Locate(home, arg string) (Target, error) {
	recs, err := murhome.ListRunning(home)
	if err != nil {
		return Target{}, err
	}
	if arg == "" {
		for _, r := range recs { // newest first
			if l := r.Check(); l == murhome.Gone || l == murhome.Reused {
				continue
			}
			if r.FormationID != "" {
				return Target{KindFormation, r.FormationID}, nil
			}
			return Target{KindSession, r.SessionID}, nil
		}
		return Target{}, diag.ViewNothingRunning()
	}
	switch {
	case strings.HasPrefix(arg, a2a.PrefixFormation):
		if why := diag.FormationIDFault(arg); why != "" {
			return Target{}, diag.ViewNotID(arg, why)
		}
		for _, r := range recs {
			if r.FormationID == arg {
				return Target{KindFormation, arg}, nil
			}
		}
		if _, err := os.Stat(murhome.FormationDir(home, arg)); err == nil {
			return Target{KindFormation, arg}, nil
		}
		return Target{}, diag.ViewNoFormation(arg, home)
	case strings.HasPrefix(arg, a2a.PrefixSession):
		if why := diag.SessionIDFault(arg); why != "" {
			return Target{}, diag.ViewNotID(arg, why)
		}
		for _, r := range recs {
			if r.SessionID == arg {
				return Target{KindSession, arg}, nil
			}
		}
		if murhome.FindSession(home, arg) != "" {
			return Target{KindSession, arg}, nil
		}
		return Target{}, diag.ViewNoSession(arg, home)
	}
	return Target{}, diag.ViewNotID(arg, "it starts with neither 'frm_' nor 'ses_'")
}
