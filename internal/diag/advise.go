package diag

import (
	"fmt"
	"strings"
)

// The warnings `mur doctor` and `mur run --roster` give from the members'
// own manifests (issue 14: mistakes that otherwise end in a broken answer
// with exit 0).
const (
	WROS002 Code = "W-ROS-002"
	WROS003 Code = "W-ROS-003"
)

// RosPeerExits is W-ROS-002: a member others call ends after its first task,
// since its lifecycle.after_task is exit (the default when the key is absent
// or misspelt), so every later call to it fails unreachable.
func RosPeerExits(m string, callers []string) *Diagnostic {
	return mk(WROS002, fmt.Sprintf("roster.yaml lets %s call '%s', but its lifecycle.after_task is exit, so it ends after its first task and every later call to it fails unreachable",
		quoteAll(callers), m),
		fmt.Sprintf("set lifecycle.after_task: sleep in '%s''s murmur.yaml", m))
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
