// Package murhome is the layout of $MURMUR_HOME (running files: running_doc.go).
// It knows where a session's records live (capsule.md SES-3):
// the records directory `$MURMUR_HOME/records/<accessible workdir, absolute,
// symlinks resolved, without its leading "/">/<ses_id>/`, its `ses_*`
// siblings (the records group), how `mur trace show` names one of them
// (CLI-9), and retention (SES-9), which retires old sessions' records and
// runtime directories.
//
// # Example
//
//	home, _ := murhome.Home(os.Getenv)
//	dir, _ := murhome.SessionDir(home, workdir, ses) // …/records/home/me/proj/ses_…
//	// after session_start:
//	removals, err := murhome.Retain(murhome.RetainConfig{Home: home, Workdir: workdir, Current: ses, MaxSessions: 20})
package murhome
