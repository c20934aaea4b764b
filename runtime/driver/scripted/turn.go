package scripted

import (
	"fmt"
	"math"

	"gopkg.in/yaml.v3"
)

const turnShape = "a turn holds text and/or tool_calls, or one of error, status"

func (l *loader) turn(path string, n *yaml.Node) (Turn, error) {
	var t Turn
	fs, err := l.fields(path, n, "text", "tool_calls", "stop_reason", "usage", "delay_ms", "error", "status")
	if err != nil {
		return t, err
	}
	if f, ok := fs["text"]; ok {
		s, err := l.str(f)
		if err != nil {
			return t, err
		}
		if err := l.templates(f.path, s); err != nil {
			return t, err
		}
		t.Text = &s
	}
	if f, ok := fs["tool_calls"]; ok {
		items, err := l.list(f)
		if err != nil {
			return t, err
		}
		for i, item := range items {
			c, err := l.toolCall(fmt.Sprintf("%s[%d]", f.path, i), item)
			if err != nil {
				return t, err
			}
			t.ToolCalls = append(t.ToolCalls, c)
		}
	}
	if f, ok := fs["stop_reason"]; ok {
		if t.StopReason, err = l.str(f); err != nil {
			return t, err
		}
	}
	if f, ok := fs["usage"]; ok {
		if t.Usage, err = l.usage(f); err != nil {
			return t, err
		}
	}
	if f, ok := fs["delay_ms"]; ok {
		if t.DelayMS, err = l.integer(f); err != nil {
			return t, err
		}
	}
	if f, ok := fs["error"]; ok {
		s, err := l.str(f)
		if err != nil {
			return t, err
		}
		if s == "" {
			return t, l.fault(f.path, "must not be empty")
		}
		t.Error = &s
	}
	if f, ok := fs["status"]; ok {
		if f.value.Kind != yaml.ScalarNode || f.value.Tag != "!!int" || f.value.Value != "401" {
			return t, l.fault(f.path, fmt.Sprintf("'%s' is not one of 401", f.value.Value))
		}
		t.Status = 401
	}
	reply := t.Text != nil || len(t.ToolCalls) > 0
	failure := 0
	if t.Error != nil {
		failure++
	}
	if t.Status != 0 {
		failure++
	}
	switch {
	case !reply && failure == 0:
		return t, l.fault(path, "empty turn: "+turnShape)
	case failure > 1 || (reply && failure > 0):
		return t, l.fault(path, turnShape+", not several")
	}
	return t, nil
}

func (l *loader) toolCall(path string, n *yaml.Node) (ToolCall, error) {
	var c ToolCall
	fs, err := l.fields(path, n, "name", "input", "id")
	if err != nil {
		return c, err
	}
	f, ok := fs["name"]
	if !ok {
		return c, l.fault(join(path, "name"), "is required")
	}
	if c.Name, err = l.str(f); err != nil {
		return c, err
	}
	if c.Name == "" {
		return c, l.fault(f.path, "must not be empty")
	}
	if f, ok := fs["id"]; ok {
		if c.ID, err = l.str(f); err != nil {
			return c, err
		}
	}
	c.Input = map[string]any{}
	if f, ok := fs["input"]; ok {
		if f.value.Kind != yaml.MappingNode {
			return c, l.fault(f.path, "must be a mapping")
		}
		v, err := l.value(f.path, f.value)
		if err != nil {
			return c, err
		}
		c.Input = v.(map[string]any)
	}
	return c, nil
}

func (l *loader) usage(f field) (Usage, error) {
	var u Usage
	fs, err := l.fields(f.path, f.value, "input", "output", "cached", "cache_write")
	if err != nil {
		return u, err
	}
	for key, dst := range map[string]**int64{"input": &u.Input, "output": &u.Output, "cached": &u.Cached, "cache_write": &u.CacheWrite} {
		if g, ok := fs[key]; ok {
			n, err := l.integer(g)
			if err != nil {
				return u, err
			}
			*dst = &n
		}
	}
	return u, nil
}

// value converts an input node to JSON-ready Go values, checking every string
// for templates.
func (l *loader) value(path string, n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, l.fault(path, "keys must be strings")
			}
			kp := join(path, k.Value)
			if _, dup := m[k.Value]; dup {
				return nil, l.fault(kp, "duplicate key")
			}
			x, err := l.value(kp, v)
			if err != nil {
				return nil, err
			}
			m[k.Value] = x
		}
		return m, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			x, err := l.value(fmt.Sprintf("%s[%d]", path, i), c)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case yaml.ScalarNode:
		return l.scalar(path, n)
	case yaml.AliasNode:
		return nil, l.fault(path, aliasFault)
	default:
		return nil, l.fault(path, "must be a plain value")
	}
}

func (l *loader) scalar(path string, n *yaml.Node) (any, error) {
	switch n.Tag {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, l.fault(path, "must be true or false")
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, nil
		}
		var u uint64
		if err := n.Decode(&u); err == nil {
			return u, nil
		}
		return nil, l.fault(path, "integer out of range")
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, l.fault(path, "'"+n.Value+"' is not a JSON number")
		}
		return f, nil
	case "!!str":
		if err := l.templates(path, n.Value); err != nil {
			return nil, err
		}
		return n.Value, nil
	default: // timestamps, binary: their source text
		if err := l.templates(path, n.Value); err != nil {
			return nil, err
		}
		return n.Value, nil
	}
}

// templates checks every {{…}} in s names a known template (DRV-7).
func (l *loader) templates(path, s string) error {
	for _, m := range templateRe.FindAllStringSubmatch(s, -1) {
		if !knownTemplate(m[1]) {
			return l.fault(path, fmt.Sprintf("unknown template '%s'", m[0]))
		}
	}
	return nil
}
