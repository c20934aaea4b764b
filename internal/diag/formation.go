package diag

import (
	"fmt"
	"strings"
)

// Codes of the formation diagnostics (formations.md §15).
const (
	EROS001 Code = "E-ROS-001"
	EROS002 Code = "E-ROS-002"
	EROS003 Code = "E-ROS-003"
	EROS004 Code = "E-ROS-004"
	EROS005 Code = "E-ROS-005"
	EROS006 Code = "E-ROS-006"
	EROS007 Code = "E-ROS-007"
	EROS008 Code = "E-ROS-008"
	ERUN044 Code = "E-RUN-044"
	ERUN045 Code = "E-RUN-045"
	ERUN046 Code = "E-RUN-046"
	ERUN047 Code = "E-RUN-047"
	WROS001 Code = "W-ROS-001"
	WRUN007 Code = "W-RUN-007"
	WRUN008 Code = "W-RUN-008"
)

// RosShape is E-ROS-001: `roster.yaml: <key path> (member '<name>'): <fault>`;
// member is "" outside a member.
func RosShape(keyPath, member, fault string) *Diagnostic {
	in := ""
	if member != "" {
		in = fmt.Sprintf(" (member '%s')", member)
	}
	return mk(EROS001, fmt.Sprintf("roster.yaml: %s%s: %s", keyPath, in, fault), "fix roster.yaml at "+keyPath)
}

// RosRead is E-ROS-001 for a roster that cannot be read or parsed at all;
// the key path is the file itself.
func RosRead(fault string) *Diagnostic {
	return mk(EROS001, "roster.yaml: "+fault, "fix roster.yaml at roster.yaml")
}

const hintOneEntry = "mark exactly one member entry: true"

// RosNoEntry is E-ROS-002 when no member is the entry.
func RosNoEntry() *Diagnostic {
	return mk(EROS002, "roster.yaml: no member is marked entry: true", hintOneEntry)
}

// RosManyEntries is E-ROS-002 when several members are the entry.
func RosManyEntries(names []string) *Diagnostic {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return mk(EROS002, fmt.Sprintf("roster.yaml: members %s are all marked entry: true", strings.Join(q, ", ")), hintOneEntry)
}

// RosDuplicateName is E-ROS-003.
func RosDuplicateName(i int, name string, j int) *Diagnostic {
	return mk(EROS003, fmt.Sprintf("roster.yaml: members[%d].name: '%s' is already the name of members[%d]", i, name, j), "give each member its own name")
}

// RosUnknownMember is E-ROS-004.
func RosUnknownMember(from, name string) *Diagnostic {
	return mk(EROS004, fmt.Sprintf("roster.yaml: the reachability rule from '%s' names '%s', which is not a member", from, name), "add the member, or correct the rule")
}

// RosNoConsent is E-ROS-005.
func RosNoConsent(from, m, capsule, version string) *Diagnostic {
	return mk(EROS005, fmt.Sprintf("roster.yaml: the reachability rule from '%s' calls '%s', but '%s' (%s@%s) does not declare exports.peer_tasks.accept: true", from, m, m, capsule, version),
		fmt.Sprintf("declare it in '%s''s murmur.yaml, or drop '%s' from every to", m, m))
}

// RosNoAuth is E-ROS-006.
func RosNoAuth(m string) *Diagnostic {
	return mk(EROS006, fmt.Sprintf("roster.yaml: member '%s' declares no `network.authentication`, and this roster declares peer traffic, so every member's door must require authentication", m),
		fmt.Sprintf("declare it in '%s''s murmur.yaml, or drop the reachability", m))
}

func rosArtifact(m, capsule, version, fault string) *Diagnostic {
	return mk(EROS007, fmt.Sprintf("roster.yaml: member '%s' (%s@%s) %s", m, capsule, version, fault),
		fmt.Sprintf("install %s@%s, or set the version mur list shows", capsule, version))
}

// RosNotInstalled is E-ROS-007 for a capsule in neither store.
func RosNotInstalled(m, capsule, version string) *Diagnostic {
	return rosArtifact(m, capsule, version, "is installed in neither store")
}

// RosHashMismatch is E-ROS-007 for bytes not matching the store's sha256.
func RosHashMismatch(m, capsule, version string) *Diagnostic {
	return rosArtifact(m, capsule, version, "does not match the sha256 its store recorded")
}

// RosManifestUnreadable is E-ROS-007 for a packed murmur.yaml that cannot be read.
func RosManifestUnreadable(m, capsule, version, why string) *Diagnostic {
	return rosArtifact(m, capsule, version, "has no readable murmur.yaml: "+why)
}

// RosEntryCalled is E-ROS-008.
func RosEntryCalled(from, entry string) *Diagnostic {
	return mk(EROS008, fmt.Sprintf("roster.yaml: the reachability rule from '%s' lists the entry member '%s' in `to`, but the entry member is never called: it runs the formation's own task from launch until the formation ends", from, entry),
		fmt.Sprintf("remove '%s' from that rule; to have '%s' report to '%s', write the rule from '%s' to '%s'", entry, from, entry, entry, from))
}

// RosLockPin is the roster form of E-REG-005.
func RosLockPin(m, capsule, version, hash, pinVersion, pinHash string) *Diagnostic {
	return mk(EREG005, fmt.Sprintf("roster.yaml: member '%s' resolves %s@%s (sha256:%s), but murmur.lock pins %s@sha256:%s", m, capsule, version, hash, pinVersion, pinHash),
		"change the roster's version or the pin")
}

// RosCapacity is W-ROS-001. callers are in roster order; capacity is ADM-2's;
// lifecycle is "task_acceptance: <mode>[, queue_depth: <q>]".
func RosCapacity(m string, callers []string, capacity int, lifecycle string) *Diagnostic {
	d := len(callers) - 1
	if d < 1 {
		d = 1
	}
	return mk(WROS001, fmt.Sprintf("roster.yaml lets %d members call '%s' (%s), but it holds %d task(s) at once — %s — so a call that arrives while it is full is rejected; lifecycle.queue_depth: %d would hold them all",
		len(callers), m, strings.Join(callers, ", "), capacity, lifecycle, d),
		fmt.Sprintf("set lifecycle.task_acceptance: queue and lifecycle.queue_depth: %d in '%s''s murmur.yaml", d, m))
}

// RunFormationIDBad is E-RUN-044; reason is one of "it does not start with
// 'frm_'", "it has <n> hex digits, not 32", "it holds a character outside lowercase hex".
func RunFormationIDBad(reason string) *Diagnostic {
	return mk(ERUN044, fmt.Sprintf("MURMUR_FORMATION_ID does not carry a formation id: %s; a session that cannot tell which formation it belongs to would be grouped with the wrong one, so the launch is refused", reason),
		"unset MURMUR_FORMATION_ID to run this capsule on its own")
}

// FormationIDFault returns E-RUN-044's reason for a value that is no formation
// id, or "" when v is one.
func FormationIDFault(v string) string {
	h, ok := strings.CutPrefix(v, "frm_")
	if !ok {
		return "it does not start with 'frm_'"
	}
	if len(h) != 32 {
		return fmt.Sprintf("it has %d hex digits, not 32", len(h))
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "it holds a character outside lowercase hex"
		}
	}
	return ""
}

// LaunchFailure is one member that failed a formation launch (E-RUN-045).
type LaunchFailure struct {
	Name, Capsule, Version string
	Reason                 string   // READY-4's reason
	Tail                   []string // its last ≤10 stderr lines, when the reason carries a tail
}

// RunLaunchFailed is E-RUN-045; stopped are "<name> (pid N)" entries (none: empty).
func RunLaunchFailed(failures []LaunchFailure, stopped []string) *Diagnostic {
	var b strings.Builder
	b.WriteString("the formation could not be launched")
	for _, f := range failures {
		fmt.Fprintf(&b, "\n  '%s' (%s@%s): %s", f.Name, f.Capsule, f.Version, f.Reason)
		if len(f.Tail) > 0 {
			b.WriteString("; its last stderr lines were:")
			for _, l := range f.Tail {
				b.WriteString("\n      " + l)
			}
		}
	}
	if len(stopped) == 0 {
		b.WriteString("\n  stopped: none")
	} else {
		b.WriteString("\n  stopped: " + strings.Join(stopped, ", "))
	}
	return mk(ERUN045, b.String(), "the formation was not launched, and nothing it started is still running; fix the member named above and launch again")
}

const hintRunStandalone = "launch the formation with mur run --roster, or unset these variables to run this capsule on its own"

// RunAlreadyMember is E-RUN-046 for a launcher started inside a formation.
func RunAlreadyMember() *Diagnostic {
	return mk(ERUN046, "MURMUR_FORMATION_ID is set, so this process is already a member of a formation, and a formation member cannot launch a formation", hintRunStandalone)
}

// RunChannelBad is E-RUN-046 for an unusable MURMUR_FORMATION_CHANNEL.
func RunChannelBad(reason string) *Diagnostic {
	return mk(ERUN046, fmt.Sprintf("MURMUR_FORMATION_CHANNEL does not carry this member's formation credentials: %s; a member that cannot read what its launcher handed it could neither prove who it is nor call anyone, so the launch is refused", reason), hintRunStandalone)
}

// RunLifelineBad is E-RUN-046 for an unusable MURMUR_FORMATION_LIFELINE.
func RunLifelineBad(reason string) *Diagnostic {
	return mk(ERUN046, fmt.Sprintf("MURMUR_FORMATION_LIFELINE does not carry this member's formation lifeline: %s; a member that cannot hear its lifeline would keep running after its formation ends, so the launch is refused", reason), hintRunStandalone)
}

// RunPeersSet is E-RUN-046 for MURMUR_FORMATION_PEERS in the environment.
func RunPeersSet() *Diagnostic {
	return mk(ERUN046, "MURMUR_FORMATION_PEERS cannot be used: it is set in this process's environment, so the launch is refused", hintRunStandalone)
}

// RunBytesChanged is E-RUN-047.
func RunBytesChanged(capsule, version, actual, bound string) *Diagnostic {
	return mk(ERUN047, fmt.Sprintf("capsule '%s@%s' resolved to bytes with sha256 %s, but it was admitted with sha256 %s", capsule, version, actual, bound),
		"launch the formation again so admission reads what is installed now")
}

// RunNoLifeline is W-RUN-007.
func RunNoLifeline(formationID string) *Diagnostic {
	return mk(WRUN007, fmt.Sprintf("this session is a member of formation %s but was handed no lifeline, so it will not wind down when that formation ends; end it with `mur stop`", formationID), "")
}

// RunNoEgress is W-RUN-008; callees in roster order.
func RunNoEgress(caller string, callees []string) *Diagnostic {
	q := make([]string, len(callees))
	for i, c := range callees {
		q[i] = "'" + c + "'"
	}
	return mk(WRUN008, fmt.Sprintf("roster.yaml lets '%s' call %s, but its capabilities.network.allow reaches no loopback http door at an unpinned port, so every call-member call will be refused; declare \"localhost\"", caller, strings.Join(q, ", ")),
		"add \"localhost\" to capabilities.network.allow")
}

const hintFormationPS = "mur ps lists the formations running here"

// RunNotFormationID is the formation form of E-RUN-022 for a bad id.
func RunNotFormationID(arg, reason string) *Diagnostic {
	return mk(ERUN022, fmt.Sprintf("'%s' is not a formation id: %s", arg, reason), hintFormationPS)
}

// RunNoFormationMember is the formation form of E-RUN-022 when no member runs.
func RunNoFormationMember(id string) *Diagnostic {
	return mk(ERUN022, fmt.Sprintf("no member of formation %s is running on this machine", id), hintFormationPS)
}

// RunFormationGone is the formation form of E-RUN-022 when every record was stale.
func RunFormationGone(id string, n int) *Diagnostic {
	return mk(ERUN022, fmt.Sprintf("formation %s is not running: %d member record(s) named processes that are gone, and were removed", id, n), hintFormationPS)
}

// RunFormationNotEnded is the formation form of E-RUN-024; reason is one of
// formations.md §15's (e.g. "its launcher, pid N, was still running 5 seconds after SIGKILL").
func RunFormationNotEnded(id, reason string) *Diagnostic {
	return mk(ERUN024, fmt.Sprintf("formation %s could not be ended: %s", id, reason), hintStillRunning)
}
