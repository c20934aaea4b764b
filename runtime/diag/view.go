package diag

import "fmt"

// Codes of `mur view`.
const (
	EVIEW001 Code = "E-VIEW-001"
	EVIEW002 Code = "E-VIEW-002"
	EVIEW003 Code = "E-VIEW-003"
	WVIEW001 Code = "W-VIEW-001"
)

const hintViewID = "name a formation (frm_…) or a session (ses_…) by its full id; mur ps lists the running ones"

// ViewNotID is E-VIEW-001 for an argument that is neither a formation id nor
// a session id; reason is FormationIDFault's (or SessionIDFault's) for an
// argument with either prefix, else "it starts with neither 'frm_' nor 'ses_'".
func ViewNotID(arg, reason string) *Diagnostic {
	return mk(EVIEW001, fmt.Sprintf("'%s' is not a formation id or a session id: %s", arg, reason), hintViewID)
}

// SessionIDFault returns the reason a value is no session id, worded as
// FormationIDFault's, or "" when v is one.
func SessionIDFault(v string) string {
	if len(v) < 4 || v[:4] != "ses_" {
		return "it does not start with 'ses_'"
	}
	return FormationIDFault("frm_" + v[4:])
}

// ViewNoFormation is E-VIEW-002 for a formation that neither runs nor left
// records under home.
func ViewNoFormation(id, home string) *Diagnostic {
	return mk(EVIEW002, fmt.Sprintf("no formation %s is running or recorded under %s", id, home), hintViewID)
}

// ViewNoSession is E-VIEW-002 for a session that neither runs nor left
// records under home.
func ViewNoSession(id, home string) *Diagnostic {
	return mk(EVIEW002, fmt.Sprintf("no session %s is running or recorded under %s", id, home), hintViewID)
}

// ViewNothingRunning is E-VIEW-002 when no id is given and nothing runs.
func ViewNothingRunning() *Diagnostic {
	return mk(EVIEW002, "no formation or session is running on this machine, so there is nothing to view",
		"name a formation or a session by its full id to view its records")
}

// ViewListen is E-VIEW-003: the view server could not listen.
func ViewListen(port int, osErr string) *Diagnostic {
	return mk(EVIEW003, fmt.Sprintf("the view could not listen on 127.0.0.1:%d: %s", port, osErr),
		"free the port, or choose another with --port (0 lets the system pick one)")
}

// ViewNoBrowser is W-VIEW-001: --open could not start a browser.
func ViewNoBrowser(why string) *Diagnostic {
	return mk(WVIEW001, fmt.Sprintf("the browser could not be opened: %s; open the URL above yourself", why), "")
}
