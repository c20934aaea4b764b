// This package holds running records, `$MURMUR_HOME/running/<ses_id>.json`
// (capsule.md SES-6, formations.md FCLI-5): what `mur ps`, `mur token` and
// `mur stop` know about the sessions alive on this machine. It writes, reads,
// lists and removes records and tells whether a record's process still runs
// (pid + process start time, Linux /proc/<pid>/stat field 22).
//
// # Example
//
//	rec := &murhome.Running{SessionID: ses, URL: url, PID: os.Getpid(), …}
//	if err := murhome.WriteRunning(home, rec); err != nil {
//		warn(err) // a *diag.Diagnostic, W-SEC-023
//	}
//	defer murhome.RemoveRunning(home, ses)

package murhome
