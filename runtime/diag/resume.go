package diag

import "fmt"

// The codes of mur run --context and --resume.
const (
	ERUN015 Code = "E-RUN-015"
	ERUN016 Code = "E-RUN-016"
	ERUN017 Code = "E-RUN-017"
	ERUN018 Code = "E-RUN-018"
	ERUN055 Code = "E-RUN-055"
)

// RunResumeAndContext is E-RUN-015: --resume and --context both given,
// refused before the session address is resolved.
func RunResumeAndContext() *Diagnostic {
	return mk(ERUN015, "--resume and --context name the same thing two ways",
		"--resume <session> resolves that session's context id for you; --context <id> names one directly. Pass whichever you have, not both")
}

// RunResumeNoTask is E-RUN-016: the session --resume named records no
// task_start carrying a context id.
func RunResumeNoTask(session string) *Diagnostic {
	return mk(ERUN016, fmt.Sprintf("cannot resume session %s: its trace.jsonl records no task_start carrying a context id", session),
		"only a session that actually ran a task has a conversation to continue. Run `mur trace show <session>` to see what it did, and resume one that reached a task")
}

// Reasons of E-RUN-017, the parenthesis naming why a context has no record.
const (
	NoRecordOff     = "the capsule declares context.record: off"
	NoRecordProcess = "the capsule declares inference.transport: process, whose CLI owns its own conversation, and kept no conversation record"
)

// NoRecordFile is E-RUN-017's reason when the record path holds no file.
func NoRecordFile(path string) string { return "no file at " + path }

// RunResumeNoRecord is E-RUN-017: the context --resume resolved to kept no
// conversation record; reason is one of the NoRecord reasons.
func RunResumeNoRecord(session, context, reason string) *Diagnostic {
	return mk(ERUN017, fmt.Sprintf("cannot resume session %s: context '%s' has no conversation record (%s)", session, context, reason),
		"a session is resumable only if its capsule kept a conversation record: an http-transport capsule that did not declare context.record: off. Run `mur trace show <session>` to see what that session did, and omit --resume to start a fresh conversation")
}

// RunResumeCompactNoHook is E-RUN-018: --resume-mode compact with no hook
// bound to on-compaction.
func RunResumeCompactNoHook() *Diagnostic {
	return mk(ERUN018, "--resume-mode compact needs a hook bound to on-compaction; this capsule declares none",
		"declare a hook artifact whose binding is on-compaction (or all) with commit_policy: replace-context, or use --resume-mode full, which loads the record verbatim and needs no hook")
}

// Reasons of E-RUN-055, naming why a formation cannot be resumed.
const (
	FormationNotFound = "no member session of it is found"
	FormationRunning  = "it is still running"
)

// RunResumeFormation is E-RUN-055: mur run --roster --resume <frm_id> names
// a formation that cannot come back with this roster; nothing is launched.
func RunResumeFormation(frm, why string) *Diagnostic {
	return mk(ERUN055, fmt.Sprintf("cannot resume formation %s: %s", frm, why),
		"mur trace show <frm_id> lists an ended formation's member sessions; resume it with the roster that launched it (the same member names), once none of its members runs (mur stop <frm_id>)")
}
