package diag

import (
	"fmt"
	"regexp"
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

// The faults of E-ROS-001 with a constructor of their own (ROS-2).
const (
	rosFaultUnknownKey = "unknown key"
	rosFaultMissing    = "missing required key"
)

// RosShape is E-ROS-001 for a key whose value breaks ROS-2:
// `roster.yaml:<line>:<col>: <key path> (member '<name>'): <fault>`, the
// position that of the value; member is "" outside a member. The hint says
// what the key takes, never the fault again.
func RosShape(line, col int, keyPath, member, fault string) *Diagnostic {
	return mk(EROS001, rosAt(line, col, keyPath, member, fault), rosKeyHint(keyPath))
}

// RosMissingKey is E-ROS-001 for a required key that is absent or has no
// value (ROS-3); the position is the mapping's that lacks it.
func RosMissingKey(line, col int, keyPath, member string) *Diagnostic {
	return mk(EROS001, rosAt(line, col, keyPath, member, rosFaultMissing), rosKeyHint(keyPath))
}

// RosUnknownKey is E-ROS-001 for a key ROS-2 does not name, with the nearest
// known key when one is close (as manifest keys get, MAN-2): `… <key path>:
// unknown key[ — did you mean '<near>'?]`. known are the mapping's keys in
// ROS-2 order.
func RosUnknownKey(line, col int, keyPath, member, near string, known []string) *Diagnostic {
	fault := rosFaultUnknownKey
	if near != "" {
		fault += fmt.Sprintf(" — did you mean '%s'?", near)
	}
	where := "the top level"
	switch {
	case strings.HasPrefix(keyPath, "members["):
		where = "a member"
	case strings.HasPrefix(keyPath, "reachability["):
		where = "a reachability rule"
	}
	return mk(EROS001, rosAt(line, col, keyPath, member, fault), fmt.Sprintf("%s takes only %s", where, andList(known)))
}

// RosDuplicateKey is E-ROS-001 for a key written twice in one mapping; first
// is the line of its first occurrence.
func RosDuplicateKey(line, col int, keyPath, member string, first int) *Diagnostic {
	key := keyPath[strings.LastIndexByte(keyPath, '.')+1:]
	return mk(EROS001, rosAt(line, col, keyPath, member, fmt.Sprintf("the key appears more than once (first at line %d)", first)),
		fmt.Sprintf("keep one '%s' and delete the other", key))
}

// RosSelfCall is E-ROS-001 for a rule whose to lists its own from.
func RosSelfCall(line, col int, keyPath, name string) *Diagnostic {
	return mk(EROS001, rosAt(line, col, keyPath, "", fmt.Sprintf("'%s' cannot call itself", name)),
		fmt.Sprintf("drop '%s' from that rule's to", name))
}

// RosYAML is E-ROS-001 for roster.yaml that is not one YAML mapping: a
// syntax error, a second document, a top level that is no mapping.
func RosYAML(line, col int, fault string) *Diagnostic {
	return mk(EROS001, fmt.Sprintf("roster.yaml:%d:%d: %s", line, col, fault), fmt.Sprintf("fix the YAML at line %d", line))
}

// RosUnreadable is E-ROS-001 for a roster.yaml that cannot be read: `roster.yaml:
// <path>: <os error>`.
func RosUnreadable(path, why string) *Diagnostic {
	return mk(EROS001, fmt.Sprintf("roster.yaml: %s: %s", path, why),
		"give --roster the project directory holding roster.yaml, or scaffold one with mur new --roster <name>")
}

// RosTooLarge is E-ROS-001 for a roster.yaml over max bytes, refused before
// it is parsed: `roster.yaml: <path>: the file is over <max>
// bytes (1 MiB), the most a roster may hold; it was not parsed`.
func RosTooLarge(path string, max int) *Diagnostic {
	return mk(EROS001, fmt.Sprintf("roster.yaml: %s: the file is over %d bytes (%s), the most a roster may hold; it was not parsed", path, max, mib(max)),
		"keep roster.yaml under "+mib(max))
}

// RosTooManyMembers is E-ROS-001 for a members list of n entries, over max;
// the position is the list's.
func RosTooManyMembers(line, col, n, max int) *Diagnostic {
	return mk(EROS001, rosAt(line, col, "members", "", fmt.Sprintf("lists %d members; a roster holds at most %d", n, max)),
		fmt.Sprintf("list at most %d members", max))
}

// RosOtherFile is E-ROS-001 for a --roster value naming another file.
func RosOtherFile(arg string) *Diagnostic {
	return mk(EROS001, fmt.Sprintf("roster.yaml: '%s' is not a roster.yaml: --roster takes the project directory or the roster.yaml in it", arg),
		fmt.Sprintf("rename %s to roster.yaml and give --roster its directory", arg))
}

func rosAt(line, col int, keyPath, member, fault string) string {
	in := ""
	if member != "" {
		in = fmt.Sprintf(" (member '%s')", member)
	}
	return fmt.Sprintf("roster.yaml:%d:%d: %s%s: %s", max(line, 1), max(col, 1), keyPath, in, fault)
}

// rosKeyHints say what each ROS-2 key takes, by key path with indices
// dropped ("members[].version").
var rosKeyHints = map[string]string{
	"roster_version":      "write roster_version: 1 at the top level",
	"members":             `list the members, each with name: <member>, capsule: <capsule> and version: "<exact version>", and entry: true on one of them`,
	"members[].name":      "name the member with a lowercase letter followed by up to 31 lowercase letters, digits or -",
	"members[].capsule":   "write the name the capsule's murmur.yaml declares; mur list --all shows the installed capsules",
	"members[].version":   `write the capsule's exact version in quotes, such as "0.1.0"; mur list --all shows the installed versions`,
	"members[].entry":     "write entry: true on the entry member and leave it out on the others",
	"reachability":        "write reachability: all, or a list of rules such as - {from: <member>, to: [<member>]}",
	"reachability[].from": "write from: <member>, the member that calls",
	"reachability[].to":   "write to: [<member>, …], the members that from may call",
	"cancel":              "write cancel: cascade to cancel a member's task when its caller's task ends without its answer, or cancel: off (the default)",
}

var rosIndex = regexp.MustCompile(`\[\d+\]`)

func rosKeyHint(keyPath string) string {
	k := rosIndex.ReplaceAllString(keyPath, "[]")
	k = strings.TrimSuffix(k, "[]")
	if h, ok := rosKeyHints[k]; ok {
		return h
	}
	return rosKeyHints["members"]
}

// andList joins words as "a, b and c", each quoted.
func andList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + w + "'"
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
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
		fmt.Sprintf("declare exports.peer_tasks.accept: true in the murmur.yaml of %s (member '%s') and install it again, or drop '%s' from every to", capsule, m, m))
}

// RosNoAuth is E-ROS-006.
func RosNoAuth(m string) *Diagnostic {
	return mk(EROS006, fmt.Sprintf("roster.yaml: member '%s' declares no `network.authentication`, and this roster declares peer traffic, so every member's door must require authentication", m),
		fmt.Sprintf("declare network.authentication in the murmur.yaml of member '%s' and install it again, or drop the reachability", m))
}

func rosArtifact(m, capsule, version, fault string) *Diagnostic {
	return mk(EROS007, fmt.Sprintf("roster.yaml: member '%s' (%s@%s) %s", m, capsule, version, fault),
		fmt.Sprintf("install %s@%s, or set the version mur list shows", capsule, version))
}

// RosMissing is one member ADM-1 check 6a found installed in neither store.
type RosMissing struct {
	Index                    int // its index in members[]
	Member, Capsule, Version string
	Installed                []string // installed versions of Capsule, "<v> (<scope> store)"
	Install                  string   // the command that installs Capsule@Version; "" if unknown
}

// RosNotInstalled is E-ROS-007 for members installed in neither store, every
// one of them (ROS-2 order): `roster.yaml: member '<m>' (<capsule>@<version>)
// is installed in neither store; <installed versions>`, or for several a
// first line `roster.yaml: <n> members are installed in neither store` and a
// line per member. The hint is the exact mur install command where the
// source is known.
func RosNotInstalled(ms []RosMissing) *Diagnostic {
	var b strings.Builder
	if len(ms) == 1 {
		m := ms[0]
		fmt.Fprintf(&b, "roster.yaml: member '%s' (%s@%s) is installed in neither store; %s", m.Member, m.Capsule, m.Version, rosInstalled(m))
	} else {
		fmt.Fprintf(&b, "roster.yaml: %d members are installed in neither store", len(ms))
		for _, m := range ms {
			fmt.Fprintf(&b, "\n  member '%s' (%s@%s): %s", m.Member, m.Capsule, m.Version, rosInstalled(m))
		}
	}
	var cmds, rest []string
	for _, m := range ms {
		if m.Install != "" {
			cmds = append(cmds, m.Install)
			continue
		}
		alt := ""
		if len(m.Installed) > 0 {
			alt = fmt.Sprintf(", or set members[%d].version to an installed one", m.Index)
		}
		rest = append(rest, fmt.Sprintf("install %s@%s with mur install <the directory holding its murmur.yaml>%s", m.Capsule, m.Version, alt))
	}
	var hint []string
	if len(cmds) > 0 {
		hint = append(hint, "run "+strings.Join(cmds, " && "))
	}
	return mk(EROS007, b.String(), strings.Join(append(hint, rest...), "; "))
}

func rosInstalled(m RosMissing) string {
	if len(m.Installed) == 0 {
		return fmt.Sprintf("no version of %s is installed", m.Capsule)
	}
	return fmt.Sprintf("installed versions of %s: %s", m.Capsule, strings.Join(m.Installed, ", "))
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
		fmt.Sprintf("set lifecycle.task_acceptance: queue and lifecycle.queue_depth: %d in the murmur.yaml of member '%s'", d, m))
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
