package diag

import (
	"fmt"
	"strings"
)

// Codes of the harness capsule (process.md §10).
const (
	ECAP016 Code = "E-CAP-016"
	ECAP019 Code = "E-CAP-019"
	ERUN006 Code = "E-RUN-006"
	ERUN033 Code = "E-RUN-033"
	ERUN035 Code = "E-RUN-035"
	ERUN036 Code = "E-RUN-036"
	WRUN002 Code = "W-RUN-002"
	WSEC031 Code = "W-SEC-031"
)

// ForgetSessionUnsupported is a process capsule's door answer to
// x-murmur-forget-session until forgetting ships (process.md THR-5):
// the -32602 message.
const ForgetSessionUnsupported = "x-murmur-forget-session is not supported by this build"

// EnvMatch is one capabilities.env.allow name the credential backstop or a
// strip_env glob removes (E-CAP-016): Source is "credential backstop" or
// "capabilities.shell.strip_env".
type EnvMatch struct {
	Name, Source, Pattern string
}

// CapEnvStripped is E-CAP-016: env.allow names variables every environment
// the runtime builds drops, so the grant would deliver nothing (PROC-3).
func CapEnvStripped(matches []EnvMatch) *Diagnostic {
	parts := make([]string, len(matches))
	for i, m := range matches {
		parts[i] = fmt.Sprintf("'%s' (%s pattern '%s')", m.Name, m.Source, m.Pattern)
	}
	return mk(ECAP016, "capabilities.env.allow names "+strings.Join(parts, ", ")+
		"; these entries are removed from every environment the runtime builds, so the grant would deliver nothing",
		"remove these entries from capabilities.env.allow. No manifest setting exempts a name from the credential backstop; a harness signs in with its own login under HOME")
}

// CapHarnessEnv is E-CAP-019: the harness (claude-code or codex) needs
// vars, which env.allow does not declare (PROC-3).
func CapHarnessEnv(harness string, vars []string) *Diagnostic {
	return mk(ECAP019, fmt.Sprintf("the %s harness requires %s in its environment, which capabilities.env.allow does not declare", harness, strings.Join(vars, ", ")),
		"add each variable to capabilities.env.allow — the harness sees only variables the manifest declares")
}

// RunHarnessNotFound is E-RUN-006 (PROC-4): name is the binary as written;
// dialect is "" when inference.command named it, else "claude" or "codex".
func RunHarnessNotFound(name, dialect string) *Diagnostic {
	by := "inference.command"
	if dialect != "" {
		by = "the " + dialect + " dialect's default"
	}
	return mk(ERUN006, fmt.Sprintf("harness binary '%s', named by %s, was not found on this host", name, by),
		"install the harness, or point inference.command at the executable to run")
}

// HarnessTurnFailedMessage is E-RUN-033's message without its code, the
// reason task_failed carries (PROC-18): kind is HEV-7's.
func HarnessTurnFailedMessage(kind, message string) string {
	return fmt.Sprintf("the harness turn failed (%s): %s", kind, message)
}

// RunHarnessFailed is E-RUN-033 (PROC-18).
func RunHarnessFailed(kind, message string) *Diagnostic {
	return mk(ERUN033, HarnessTurnFailedMessage(kind, message),
		"see `mur trace show` for the turn; auth means the harness is not signed in on this host, quota means wait or raise the plan's limit, and max-turns means raise inference.max_turns")
}

// HarnessInactiveMessage is E-RUN-035's message (PROC-17).
func HarnessInactiveMessage(secs int64) string {
	return fmt.Sprintf("the harness produced neither a line of output nor a tool call for %ds and was killed", secs)
}

// RunHarnessInactive is E-RUN-035 (PROC-17): secs is the limit, 600.
func RunHarnessInactive(secs int64) *Diagnostic {
	return mk(ERUN035, HarnessInactiveMessage(secs),
		"the harness was waiting on something that never came; check `mur trace show` for the last thing it did")
}

// HarnessSessionLostMessage is E-RUN-036's message (THR-4, PROC-13):
// context is the A2A context whose entry names the session, "" when the
// task itself started it (then taskID names the task and path is unused).
func HarnessSessionLostMessage(harness, id, context, taskID, message, path string) string {
	if context != "" {
		return fmt.Sprintf("the harness '%s' could not continue session %s, which context '%s' names: %s (that id is recorded in %s)", harness, id, context, message, path)
	}
	return fmt.Sprintf("the harness '%s' could not continue session %s, which task %s started: %s", harness, id, taskID, message)
}

// RunHarnessSessionLost is E-RUN-036 (THR-4).
func RunHarnessSessionLost(harness, id, context, taskID, message, path string) *Diagnostic {
	return mk(ERUN036, HarnessSessionLostMessage(harness, id, context, taskID, message, path),
		"the harness no longer holds that conversation. mur left the id where it is, so the next task in this context fails the same way rather than answering from nothing; remove that file to start this context anew")
}

// RunHarnessVersion is W-RUN-002 for a version line other than the one the
// dialect was tested against (PROC-10).
func RunHarnessVersion(line, dialect, tested string) *Diagnostic {
	return mk(WRUN002, fmt.Sprintf("the harness reports version '%s', which this build's %s dialect was not tested against (tested against %s)", line, dialect, tested), "")
}

// RunHarnessVersionUnread is W-RUN-002 when no version could be read:
// why is "it exited non-zero", "it did not answer within 10s", "it printed
// nothing" or "it could not be run: <error>".
func RunHarnessVersionUnread(tested, why string) *Diagnostic {
	return mk(WRUN002, fmt.Sprintf("the harness version could not be read (tested against %s): %s", tested, why), "")
}

// SecHarnessAPIKey is W-SEC-031 (HEV-9).
func SecHarnessAPIKey() *Diagnostic {
	return mk(WSEC031, "the harness session reports auth 'api-key', not 'subscription' — this run's spend may be billed to an API key rather than to the subscription this transport exists for", "")
}
