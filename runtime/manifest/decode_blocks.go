package manifest

import (
	"encoding/json"
	"fmt"
	"math"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/diag"
)

// top decodes the document's root mapping, blocks in a fixed order.
func (l *loader) top(root *yaml.Node, artifactMode bool) {
	m := l.m
	strField := func(dst *string) func(string, *yaml.Node) {
		return func(d string, v *yaml.Node) {
			if s, ok := l.str(d, v); ok {
				*dst = s
			}
		}
	}
	fields := []field{
		{key: "name", fn: func(d string, v *yaml.Node) {
			s, ok := l.str(d, v)
			if !ok {
				return
			}
			m.Name = s
			// Under mur install a malformed name is E-BLD-001 (LoadArtifact).
			if p := NameProblem(s); p != "" && !artifactMode {
				l.invalid(d, "'%s' is not an artifact name: %s", s, p)
			}
		}},
		{key: "version", fn: func(d string, v *yaml.Node) {
			if s, ok := l.version(d, v); ok {
				m.Version = s
			}
		}},
		{key: "description", fn: strField(&m.Description)},
		{key: "runtime", fn: func(d string, v *yaml.Node) {
			if s, ok := l.enum(d, v, "capsule", "tool", "skill", "driver", "hook"); ok {
				m.Runtime = s
			}
		}},
		{key: "mur_version", fn: strField(&m.MurVersion)},
		{key: "implementation", fn: strField(&m.Implementation)},
		{key: "execution", fn: strField(&m.Execution)},
		{key: "requires_files", fn: func(d string, v *yaml.Node) {
			if s, ok := l.strList(d, v); ok {
				m.RequiresFiles = s
			}
		}},
		{key: "command", fn: strField(&m.Command)},
		{key: "binding", fn: func(d string, v *yaml.Node) {
			if s, ok := l.enum(d, v, HookBindings...); ok {
				m.hookContract().Binding = s
			}
		}},
		{key: "execution_mode", fn: func(d string, v *yaml.Node) {
			if s, ok := l.enum(d, v, "blocking", "async"); ok {
				m.hookContract().ExecutionMode = s
			}
		}},
		{key: "commit_policy", fn: func(d string, v *yaml.Node) {
			if s, ok := l.enum(d, v, HookPolicies...); ok {
				m.hookContract().CommitPolicy = s
			}
		}},
		{key: "input_schema", fn: l.inputSchema},
		{key: "artifacts", fn: l.artifacts},
		{key: "capabilities", fn: l.capabilities},
		{key: "exports", fn: l.exports},
		{key: "network", fn: l.network},
		{key: "control", fn: l.control},
		{key: "trace", fn: l.trace},
		{key: "context", fn: l.context},
		{key: "lifecycle", fn: l.lifecycle},
		{key: "inference", fn: l.inference},
	}
	l.process = peekTransport(root) == TransportProcess
	if !l.mapping("", root, fields, "name", "version") {
		return
	}
	// MAN-4 step 3 (E-RUN-005); a key with no value is absent (MAN-3).
	if !artifactMode && !l.present("inference") {
		l.miss = append(l.miss, diag.RunNoInference(l.file))
	}
}

// inputSchema reads a tool's input_schema: a mapping, or a string holding a
// JSON object (STORE-1).
func (l *loader) inputSchema(d string, v *yaml.Node) {
	v = resolve(v)
	var obj any
	switch {
	case v.Kind == yaml.MappingNode:
		val, ok := l.jsonValue(v)
		if !ok {
			l.invalid(d, "must be a JSON Schema object")
			return
		}
		obj = val
	case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
		var m map[string]any
		if err := json.Unmarshal([]byte(v.Value), &m); err != nil || m == nil {
			l.invalid(d, "must be a JSON Schema object, as YAML or a JSON string")
			return
		}
		obj = m
	default:
		l.invalid(d, "must be a JSON Schema object, as YAML or a JSON string")
		return
	}
	b, err := json.Marshal(obj)
	if err != nil {
		l.invalid(d, "must be a JSON Schema object")
		return
	}
	l.m.InputSchema = b
}

// jsonValue decodes a YAML mapping into a JSON-compatible value.
func (l *loader) jsonValue(v *yaml.Node) (map[string]any, bool) {
	var raw any
	if err := v.Decode(&raw); err != nil {
		return nil, false
	}
	val, ok := jsonable(raw)
	if !ok {
		return nil, false
	}
	m, ok := val.(map[string]any)
	return m, ok
}

// jsonable converts yaml.v3's decoded value into JSON-marshalable form.
func jsonable(v any) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			c, ok := jsonable(e)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			c, ok := jsonable(e)
			if !ok {
				return nil, false
			}
			out[fmt.Sprint(k)] = c
		}
		return out, true
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, ok := jsonable(e)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, false
		}
		return t, true
	case nil, string, bool, int, int64, uint64:
		return t, true
	default:
		// timestamps and binary values become their text
		return fmt.Sprint(t), true
	}
}

// maxConfigJSON is the E-CAP-010 limit on an artifact's config (LOOP-10).
const maxConfigJSON = 65536

func (l *loader) artifacts(d string, v *yaml.Node) {
	v = resolve(v)
	if v.Kind != yaml.SequenceNode {
		l.invalid(d, "must be a list, not %s", kindName(v))
		return
	}
	for i, e := range v.Content {
		path := fmt.Sprintf("%s[%d]", d, i)
		var a Artifact
		fields := []field{
			{key: "name", fn: func(d string, v *yaml.Node) {
				s, ok := l.str(d, v)
				if !ok {
					return
				}
				a.Ref = s
				a.Scope, a.Name = SplitRef(s)
				if p := NameProblem(a.Name); p != "" {
					l.invalid(d, "'%s' is not an artifact name: %s", s, p)
				}
			}},
			{key: "version", fn: func(d string, v *yaml.Node) {
				if s, ok := l.version(d, v); ok {
					a.Version = s
				}
			}},
			{key: "runtime", fn: func(d string, v *yaml.Node) {
				if s, ok := l.enum(d, v, "tool", "skill", "driver", "hook"); ok {
					a.Runtime = s
				}
			}},
			{key: "config", fn: func(d string, v *yaml.Node) {
				l.artifactConfig(&a, v)
			}},
			{key: "on_overflow", fn: func(d string, v *yaml.Node) {
				if s, ok := l.enum(d, v, "drop", "block"); ok {
					a.OnOverflow = s
				}
			}},
			{key: "capabilities", fn: func(d string, v *yaml.Node) {
				a.Hook = l.hookGrant(d, v)
			}},
			{key: "source", later: true, fn: func(d string, v *yaml.Node) {
				if s, ok := l.str(d, v); ok {
					a.Source = s
				}
			}},
			{key: "local_source", later: true, fn: func(d string, v *yaml.Node) {
				if b, ok := l.boolean(d, v); ok {
					a.LocalSource = &b
				}
			}},
		}
		l.mapping(path, e, fields, "name", "version")
		if a.Runtime != "hook" {
			for _, k := range []string{"on_overflow", "capabilities"} {
				if l.present(path + "." + k) {
					l.invalid(path+"."+k, "is read only on a runtime: hook entry")
				}
			}
		} else if a.OnOverflow == "" {
			a.OnOverflow = "drop"
		}
		l.m.Artifacts = append(l.m.Artifacts, a)
	}
}

func (l *loader) artifactConfig(a *Artifact, v *yaml.Node) {
	name := a.Ref
	v = resolve(v)
	if v.Kind != yaml.MappingNode {
		l.fault(diag.CapConfigNotMapping(name))
		return
	}
	m, ok := l.jsonValue(v)
	if !ok {
		l.fault(diag.CapConfigNotMapping(name))
		return
	}
	b, err := json.Marshal(m)
	if err != nil {
		l.fault(diag.CapConfigNotMapping(name))
		return
	}
	if len(b) > maxConfigJSON {
		l.fault(diag.CapConfigTooLarge(name, len(b)))
		return
	}
	a.Config, a.ConfigJSON = m, b
}

// version reads a version string and checks its shape (capsule.md §1.2).
func (l *loader) version(d string, v *yaml.Node) (string, bool) {
	s, ok := l.str(d, v)
	if !ok {
		return "", false
	}
	if p := VersionProblem(s); p != "" {
		l.invalid(d, "'%s' is not a version: %s", s, p)
		return "", false
	}
	return s, true
}

func (l *loader) exports(d string, v *yaml.Node) {
	e := &l.m.Exports
	l.mapping(d, v, []field{
		{key: "peer_tasks", fn: func(d string, v *yaml.Node) {
			l.mapping(d, v, []field{{key: "accept", fn: func(d string, v *yaml.Node) {
				if b, ok := l.boolean(d, v); ok {
					e.PeerTasks.Accept = b
				}
			}}})
		}},
		{key: "peer_files", fn: func(d string, v *yaml.Node) {
			pf := &PeerFiles{}
			l.mapping(d, v, []field{
				{key: "root", fn: func(d string, v *yaml.Node) { pf.Root, _ = l.str(d, v) }},
				{key: "max_ttl", fn: func(d string, v *yaml.Node) {
					ttl, ok := l.duration(d, v)
					switch {
					case !ok:
					case ttl <= 0:
						l.invalid(d, "must be at least 1s")
					default:
						pf.MaxTTL, pf.TTLDeclared = ttl, true
					}
				}},
				{key: "max_bytes", fn: func(d string, v *yaml.Node) { pf.MaxBytes, _ = l.size(d, v) }},
			}, "root")
			e.PeerFiles = pf
		}},
		{key: "files", later: true, fn: func(d string, v *yaml.Node) {
			f := &FileExport{}
			l.mapping(d, v, []field{
				{key: "root", fn: func(d string, v *yaml.Node) { f.Root, _ = l.str(d, v) }},
				{key: "mode", fn: func(d string, v *yaml.Node) { f.Mode, _ = l.enum(d, v, "read-only") }},
				{key: "max_bytes", fn: func(d string, v *yaml.Node) { f.MaxBytes, _ = l.size(d, v) }},
			}, "root", "mode")
			e.Files = f
		}},
	})
}

func (l *loader) control(d string, v *yaml.Node) {
	v = resolve(v)
	fields := []field{{key: "agent_settings", fn: func(d string, v *yaml.Node) {
		list, ok := l.strList(d, v)
		if !ok {
			return
		}
		for i, s := range list {
			if s != "inference.driver" {
				l.fault(diag.ManNotOneOf(l.at(fmt.Sprintf("%s[%d]", d, i)), fmt.Sprintf("%s[%d]", d, i), s, "inference.driver"))
				return
			}
		}
		l.m.Control.AgentSettings = list
	}}}
	// The rest of control: is LATER (capsule.md §1.4): accepted with a warning.
	if v.Kind == yaml.MappingNode {
		for _, kv := range pairs(v) {
			if k := kv[0].Value; k != "agent_settings" && !contains(keysOf(fields), k) {
				fields = append(fields, field{key: k, later: true, fn: func(string, *yaml.Node) {}})
			}
		}
	}
	l.mapping(d, v, fields)
}

func keysOf(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.key
	}
	return out
}

func (l *loader) trace(d string, v *yaml.Node) {
	t := &l.m.Trace
	l.mapping(d, v, []field{
		{key: "capture", fn: func(d string, v *yaml.Node) {
			if s, ok := l.enum(d, v, "none", "meta", "content"); ok {
				t.Capture = s
			}
		}},
		{key: "retain", empty: true, fn: func(d string, v *yaml.Node) {
			r := &Retain{}
			t.Retain = r
			if isNull(v) || resolve(v).Kind == yaml.MappingNode && len(resolve(v).Content) == 0 {
				l.invalid(d, "declare max_sessions, max_age or both")
				return
			}
			l.mapping(d, v, []field{
				{key: "max_sessions", fn: func(d string, v *yaml.Node) {
					if n, ok := l.atLeast(d, v, 1); ok {
						r.MaxSessions = int(n)
					}
				}},
				{key: "max_age", fn: func(d string, v *yaml.Node) {
					age, ok := l.duration(d, v)
					if ok && age == 0 {
						l.invalid(d, "must be greater than 0")
						return
					}
					r.MaxAge = age
				}},
			})
			if r.MaxSessions == 0 && r.MaxAge == 0 && !l.present(d+".max_sessions") && !l.present(d+".max_age") {
				l.invalid(d, "declare max_sessions, max_age or both")
			}
		}},
	})
}

// context reads the context block: the durable conversation record.
func (l *loader) context(d string, v *yaml.Node) {
	c := &l.m.Context
	l.mapping(d, v, []field{
		{key: "record", fn: func(d string, v *yaml.Node) {
			if n := resolve(v); n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
				if b, ok := l.boolean(d, v); ok { // YAML 1.1 reads on/off as booleans
					c.Record = map[bool]string{true: "on", false: "off"}[b]
				}
				return
			}
			if s, ok := l.enum(d, v, "on", "off"); ok {
				c.Record = s
			}
		}},
		{key: "record_store", fn: func(d string, v *yaml.Node) {
			s, ok := l.str(d, v)
			if !ok {
				return
			}
			if why := NameProblem(s); why != "" {
				l.invalid(d, "is not a record store name: %s", why)
				return
			}
			c.RecordStore = s
		}},
		{key: "max_tokens", fn: func(d string, v *yaml.Node) {
			if n, ok := l.atLeast(d, v, 1); ok {
				c.MaxTokens = n
			}
		}},
		{key: "retain", empty: true, fn: func(d string, v *yaml.Node) {
			r := &ContextRetain{}
			c.Retain = r
			if isNull(v) || resolve(v).Kind == yaml.MappingNode && len(resolve(v).Content) == 0 {
				l.invalid(d, "declare max_messages, max_age or both")
				return
			}
			l.mapping(d, v, []field{
				{key: "max_messages", fn: func(d string, v *yaml.Node) {
					if n, ok := l.atLeast(d, v, 1); ok {
						r.MaxMessages = int(n)
					}
				}},
				{key: "max_age", fn: func(d string, v *yaml.Node) {
					age, ok := l.duration(d, v)
					if ok && age == 0 {
						l.invalid(d, "must be greater than 0")
						return
					}
					r.MaxAge = age
				}},
			})
			if r.MaxMessages == 0 && r.MaxAge == 0 && !l.present(d+".max_messages") && !l.present(d+".max_age") {
				l.invalid(d, "declare max_messages, max_age or both")
			}
		}},
	})
}
