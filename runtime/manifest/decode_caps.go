package manifest

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/diag"
)

func (l *loader) capabilities(d string, v *yaml.Node) {
	c := &l.m.Capabilities
	noop := func(string, *yaml.Node) {}
	l.mapping(d, v, []field{
		{key: "shell", empty: true, fn: l.shell},
		{key: "network", fn: func(d string, v *yaml.Node) {
			l.mapping(d, v, []field{{key: "allow", fn: func(d string, v *yaml.Node) {
				if list, ok := l.strList(d, v); ok {
					l.netAllow = list
				}
			}}, {key: "listen", fn: func(d string, v *yaml.Node) { c.Network.Listen = l.ports(d, v) }}})
		}},
		{key: "filesystem", fn: func(d string, v *yaml.Node) {
			l.mapping(d, v, []field{
				{key: "scope", fn: func(d string, v *yaml.Node) { c.Filesystem.Scope, _ = l.str(d, v) }},
				{key: "read_only", fn: func(d string, v *yaml.Node) { c.Filesystem.ReadOnly, _ = l.strList(d, v) }},
			})
		}},
		{key: "spawn", fn: l.spawn},
		{key: "plan", empty: true, fn: func(d string, v *yaml.Node) {
			p := &Plan{}
			c.Plan = p
			if isNull(v) {
				l.invalid(d, "a plan: block must declare submit")
				return
			}
			if l.mapping(d, v, []field{{key: "submit", fn: func(d string, v *yaml.Node) { p.Submit, _ = l.boolean(d, v) }}}) &&
				!l.present(d+".submit") {
				l.invalid(d, "a plan: block must declare submit")
			}
		}},
		{key: "peer_fetch", empty: true, fn: func(d string, v *yaml.Node) {
			c.PeerFetch = &PeerFetch{}
			if isNull(v) {
				l.invalid(d+".allow", "must list at least one entry")
				return
			}
			if !l.mapping(d, v, []field{{key: "allow", empty: true, fn: func(d string, v *yaml.Node) {
				if isNull(v) {
					l.invalid(d, "must list at least one entry")
					return
				}
				list, ok := l.strList(d, v)
				if ok && len(list) == 0 {
					l.invalid(d, "must list at least one entry")
					return
				}
				l.peerFetchAllow = list
			}}, {key: "max_bytes", fn: func(d string, v *yaml.Node) { c.PeerFetch.MaxBytes, _ = l.size(d, v) }}}) {
				return
			}
			if !l.present(d+".allow") && l.peerFetchAllow == nil {
				l.invalid(d+".allow", "must list at least one entry")
			}
		}},
		{key: "install", fn: l.install},
		// The containment class the capsule asks of the kernel, weakest
		// first.
		{key: "containment", fn: func(d string, v *yaml.Node) {
			c.Containment, _ = l.enum(d, v, "advisory", "scoped", "sealed")
		}},
		{key: "resources", fn: l.resources},
		{key: "env", fn: l.env},
		// LATER blocks (capsule.md §1.3): accepted, ignored with W-SEC-019.
		{key: "limits", later: true, fn: noop},
		{key: "state", later: true, fn: noop},
		{key: "conversation", later: true, fn: noop},
	})
}

// resources reads capabilities.resources: each field an integer greater
// than 0.
func (l *loader) resources(d string, v *yaml.Node) {
	r := &l.m.Capabilities.Resources
	pos := func(dst *int64) func(string, *yaml.Node) {
		return func(d string, v *yaml.Node) { *dst, _ = l.atLeast(d, v, 1) }
	}
	l.mapping(d, v, []field{
		{key: "max_processes", fn: pos(&r.MaxProcesses)},
		{key: "max_open_files", fn: pos(&r.MaxOpenFiles)},
		{key: "max_file_size_bytes", fn: pos(&r.MaxFileSizeBytes)},
		{key: "memory_bytes", fn: pos(&r.MemoryBytes)},
		{key: "cpu_seconds", fn: pos(&r.CPUSeconds)},
		{key: "cgroup_pids_max", fn: pos(&r.CgroupPidsMax)},
		{key: "cgroup_memory_bytes", fn: pos(&r.CgroupMemoryBytes)},
	})
}

// envName is a variable name capabilities.env.allow may hold (PROC-3).
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// env reads capabilities.env (process.md PROC-3). Under http the grant acts
// only for delegated children (tools.md delegate-task); without capabilities.spawn
// it is validated, then ignored with W-SEC-019.
func (l *loader) env(d string, v *yaml.Node) {
	e := &EnvGrant{}
	l.m.Capabilities.Env = e
	l.mapping(d, v, []field{{key: "allow", fn: func(d string, v *yaml.Node) {
		list, ok := l.strList(d, v)
		if !ok {
			return
		}
		for i, n := range list {
			if !envName.MatchString(n) {
				l.invalid(fmt.Sprintf("%s[%d]", d, i), "'%s' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", n)
				return
			}
		}
		e.Allow = list
		if !l.process && l.m.Capabilities.Spawn == nil { // spawn decodes first
			l.warns = append(l.warns, diag.SecNotSupported(d))
		}
	}}})
}

func (l *loader) shell(d string, v *yaml.Node) {
	s := &Shell{}
	l.m.Capabilities.Shell = s
	if isNull(v) {
		l.invalid(d+".allow", "a shell: block must list at least one binary")
		return
	}
	bad := false // allow already has a fault of its own
	ok := l.mapping(d, v, []field{
		{key: "allow", empty: true, fn: func(d string, v *yaml.Node) {
			if isNull(v) {
				return
			}
			list, ok := l.strList(d, v)
			if !ok {
				bad = true
				return
			}
			for i, b := range list {
				if b == "" || strings.ContainsAny(b, "/ \t") {
					l.invalid(fmt.Sprintf("%s[%d]", d, i), "'%s' is not a bare binary name", b)
					bad = true
					return
				}
			}
			s.Allow = list
		}},
		{key: "strip_env", fn: func(d string, v *yaml.Node) { s.StripEnv, _ = l.strList(d, v) }},
		{key: "baseline_env", fn: func(d string, v *yaml.Node) { s.BaselineEnv, _ = l.strList(d, v) }},
	})
	if ok && len(s.Allow) == 0 && !bad {
		fault := "a shell: block must list at least one binary"
		if k := misspelt(v, "allow"); k != "" {
			fault += fmt.Sprintf("; it holds '%s' — did you mean 'allow'?", k)
		}
		l.invalid(d+".allow", "%s", fault)
	}
}

// misspelt returns a key of the mapping n, other than want, that is a
// near miss of want (diag.Nearest's rule), or "".
func misspelt(n *yaml.Node, want string) string {
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != want && diag.Nearest(k, []string{want}) == want {
			return k
		}
	}
	return ""
}

func (l *loader) install(d string, v *yaml.Node) {
	in := &Install{}
	l.m.Capabilities.Install = in
	pattern := func(dst *[]string) func(string, *yaml.Node) {
		return func(d string, v *yaml.Node) {
			list, ok := l.strList(d, v)
			if !ok {
				return
			}
			for i, e := range list {
				if !strings.Contains(e, "/") && !strings.HasSuffix(e, "*") {
					l.invalid(fmt.Sprintf("%s[%d]", d, i), "'%s' is neither a full name (<scope>/<name>) nor a pattern ending in *", e)
					return
				}
			}
			*dst = list
		}
	}
	l.mapping(d, v, []field{
		{key: "skill", fn: pattern(&in.Skill)},
		{key: "tool", fn: pattern(&in.Tool)},
		{key: "from", fn: func(d string, v *yaml.Node) { in.From, _ = l.strList(d, v) }},
	})
}

func (l *loader) lifecycle(d string, v *yaml.Node) {
	lc := &l.m.Lifecycle
	intField := func(min int64, dst func(int)) func(string, *yaml.Node) {
		return func(d string, v *yaml.Node) {
			if n, ok := l.atLeast(d, v, min); ok {
				dst(int(n))
			}
		}
	}
	ptr := func(dst **int) func(int) { return func(n int) { *dst = &n } }
	l.mapping(d, v, []field{
		{key: "task_acceptance", fn: func(d string, v *yaml.Node) {
			if s, ok := l.enum(d, v, "none", "single", "queue"); ok {
				lc.TaskAcceptance = s
			}
		}},
		{key: "after_task", fn: func(d string, v *yaml.Node) {
			if s, ok := l.enum(d, v, "exit", "sleep"); ok {
				lc.AfterTask = s
			}
		}},
		{key: "queue_depth", fn: intField(1, func(n int) { lc.QueueDepth = n })},
		{key: "max_task_reopens", fn: intField(0, func(n int) { lc.MaxTaskReopens = n })},
		{key: "keep_working", fn: func(d string, v *yaml.Node) {
			kw := &KeepWorking{}
			l.mapping(d, v, []field{
				{key: "limit", fn: intField(1, func(n int) { kw.Limit = n })},
				{key: "message", fn: func(d string, v *yaml.Node) { kw.Message, _ = l.str(d, v) }},
			})
			lc.KeepWorking = kw
		}},
		{key: "done_check", fn: func(d string, v *yaml.Node) {
			dc := &DoneCheck{}
			l.mapping(d, v, []field{
				{key: "command", fn: func(d string, v *yaml.Node) {
					s, ok := l.str(d, v)
					if ok && strings.TrimSpace(s) == "" {
						l.invalid(d, "must not be empty")
						return
					}
					dc.Command = s
				}},
				{key: "limit", fn: intField(0, func(n int) { dc.Limit = n })},
				{key: "timeout_secs", fn: intField(1, func(n int) { dc.TimeoutSecs = n })},
			}, "command")
			lc.DoneCheck = dc
		}},
		{key: "shell_grace_secs", fn: intField(0, ptr(&lc.ShellGraceSecs))},
		{key: "deadline_notice_secs", fn: intField(0, ptr(&lc.DeadlineNoticeSecs))},
		{key: "delegation_deadline_secs", fn: intField(1, func(n int) { lc.DelegationDeadlineSecs = n })},
		{key: "conversation", fn: func(d string, v *yaml.Node) {
			if s, ok := l.enum(d, v, "stateless", "threaded"); ok {
				lc.Conversation = s
			}
		}},
		{key: "input_timeout_secs", fn: intField(1, ptr(&lc.InputTimeoutSecs))},
	})
	// MAN-2: conversation: threaded is validated, then ignored under http;
	// under process it maps contexts to harness sessions (THR-1).
	if lc.Conversation == "threaded" && !l.process {
		l.warns = append(l.warns, diag.SecNotSupported(d+".conversation"))
	}
}

// spawn is capabilities.spawn (tools.md DLG-1): allow lists the capsules
// delegate-task and a plan's capsule steps may start, each an exact
// <scope>/<name>@<version>.
func (l *loader) spawn(d string, v *yaml.Node) {
	s := &Spawn{}
	l.m.Capabilities.Spawn = s
	l.mapping(d, v, []field{{key: "allow", fn: func(d string, v *yaml.Node) {
		list, ok := l.strList(d, v)
		if !ok {
			return
		}
		seen := map[string]bool{}
		for i, e := range list {
			ref, why := ParseSpawnRef(e)
			if why == "" && seen[ref.Name+"@"+ref.Version] {
				why = fmt.Sprintf("it names %s@%s a second time", ref.Name, ref.Version)
			}
			if why != "" {
				l.invalid(fmt.Sprintf("%s[%d]", d, i), "'%s' is not an exact <scope>/<name>@<version>: %s", e, why)
				return
			}
			seen[ref.Name+"@"+ref.Version] = true
			s.Refs = append(s.Refs, ref)
		}
		s.Allow = list
	}}})
}

// ports reads a list of TCP ports, each 1–65535.
func (l *loader) ports(d string, v *yaml.Node) []uint16 {
	v = resolve(v)
	if v.Kind != yaml.SequenceNode {
		l.invalid(d, "must be a list, not %s", kindName(v))
		return nil
	}
	var out []uint16
	for i, e := range v.Content {
		at := fmt.Sprintf("%s[%d]", d, i)
		l.note(at, e)
		n, ok := l.integer(at, e)
		if !ok {
			continue
		}
		if n < 1 || n > 65535 {
			l.invalid(at, "%d is not a port (1-65535)", n)
			continue
		}
		out = append(out, uint16(n))
	}
	return out
}
