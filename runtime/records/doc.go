// Package records knows where a session's records live (capsule.md SES-3):
// the records directory `$MURMUR_HOME/records/<accessible workdir, absolute,
// symlinks resolved, without its leading "/">/<ses_id>/`, its `ses_*`
// siblings (the records group), how `mur trace show` names one of them
// (CLI-9), and retention (SES-9), which retires old sessions' records and
// runtime directories.
//
// # Example
//
//	home, _ := records.Home(os.Getenv)
//	dir, _ := records.Dir(home, workdir, ses) // …/records/home/me/proj/ses_…
//	// after session_start:
//	removals, err := records.Retain(records.RetainConfig{Home: home, Workdir: workdir, Current: ses, MaxSessions: 20})
package records
