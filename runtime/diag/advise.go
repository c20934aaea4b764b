package diag

import (
	"fmt"
	"strings"
)

// The warnings `mur doctor` and `mur run --roster` give from the members'
// own manifests (mistakes that otherwise end in a broken answer
// with exit 0).
const (
	WROS002 Code = "W-ROS-002"
	WROS003 Code = "W-ROS-003"
	WROS004 Code = "W-ROS-004"
	WREG001 Code = "W-REG-001"
	WRUN010 Code = "W-RUN-010"
	ERUN048 Code = "E-RUN-048"
)

// RosCallsNoOne is W-ROS-004: member m's script calls call-member, but the
// roster lets m call no member, so the tool is not offered and each of
// those calls fails.
func RosCallsNoOne(m string) *Diagnostic {
	return mk(WROS004, fmt.Sprintf("member '%s': its script calls call-member, but roster.yaml lets it call no member, so call-member is not offered to it and each of those calls fails", m),
		fmt.Sprintf("add a reachability rule from: %s, to: [<member>]", m))
}

// RegSourceChanged is W-REG-001: name@version in the scope store was
// installed from source, which now hashes to other bytes (an edit since the
// install), so a run uses the copy installed before it; fix is the command
// that installs the edit, alt another ("" for none). Digests are cut to 12
// hex digits.
func RegSourceChanged(name, version, scope, source, installed, now, fix, alt string) *Diagnostic {
	also, hint := "", "run "+fix
	if alt != "" {
		also, hint = " (or "+alt+", which does so before it launches)", hint+", or "+alt
	}
	return mk(WREG001, fmt.Sprintf("%s@%s in the %s store was installed from %s, which has changed since (sha256:%s… now, sha256:%s… installed), so a run uses the copy installed before the change; %s installs the change%s",
		name, version, scope, source, short(now), short(installed), fix, also), hint)
}

// RunDespite is W-RUN-010, the last line of a run that went ahead with
// warnings: the answer came despite them (codes, in the order printed).
func RunDespite(what string, codes []Code) *Diagnostic {
	cs := make([]string, len(codes))
	for i, c := range codes {
		cs[i] = string(c)
	}
	return mk(WRUN010, fmt.Sprintf("%s came despite %s printed at launch (%s); mur doctor explains each, and --strict refuses such a run", what, count(len(codes), "warning"), strings.Join(cs, ", ")), "")
}

// RunStrict is E-RUN-048: --strict (or the roster's strict: true) and the
// launch's warnings, each printed above it.
func RunStrict(n int, setBy string) *Diagnostic {
	return mk(ERUN048, fmt.Sprintf("%s refuses a launch with warnings, and this one has %s (above)", setBy, count(n, "warning")),
		"fix each warning, or run without --strict")
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// RosPeerExits is W-ROS-002: a member others call ends after its first task,
// since its lifecycle.after_task is exit (the default when the key is absent
// or misspelt), so every later call to it fails unreachable.
func RosPeerExits(m string, callers []string) *Diagnostic {
	return mk(WROS002, fmt.Sprintf("roster.yaml lets %s call '%s', but its lifecycle.after_task is exit, so it ends after its first task and every later call to it fails unreachable",
		quoteAll(callers), m),
		fmt.Sprintf("set lifecycle.after_task: sleep in the murmur.yaml of member '%s'", m))
}

// RosCredentialUnset is W-ROS-003: a member's driver credential variable is
// set neither in the environment nor in .env, so that member cannot start.
func RosCredentialUnset(m, key, name string) *Diagnostic {
	return mk(WROS003, fmt.Sprintf("member '%s': %s names %s, which is set neither in this environment nor in .env, so '%s' cannot start and the launch fails", m, key, name, m),
		fmt.Sprintf("set %s in the environment or in .env before mur run --roster", name))
}

// InMember is d, a warning from member m's manifest (W-SEC-019, W-RUN-003),
// with the member named first; code and hint are d's.
func InMember(m string, d *Diagnostic) *Diagnostic {
	return mk(d.Code, fmt.Sprintf("member '%s': %s", m, d.Msg), d.Hint)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return strings.Join(q, ", ")
}

// WRUN009 is the warning for a launch task's member call that did not
// end completed.
const WRUN009 Code = "W-RUN-009"

// RunCallNotCompleted is W-RUN-009: the launch task's call to member m
// ended status, with why (the call's outcome on one line); the task's answer
// may lack what m was asked for.
func RunCallNotCompleted(m, callID, status, why string) *Diagnostic {
	return mk(WRUN009, fmt.Sprintf("the task's call %s to member '%s' ended %s: %s", callID, m, status, why),
		"mur trace show names every call's outcome; fix the member and run the formation again")
}

// TrcNoFormation is E-TRC-002 for a formation id no member session of
// which is found under home (FCLI-8).
func TrcNoFormation(frm, home string) *Diagnostic {
	return mk(ETRC002, fmt.Sprintf("no member session of formation %s is found under %s", frm, home),
		"mur ps lists the formations running here; an ended one's sessions stay until retention removes them")
}
