package scripted

import (
	"regexp"
	"strings"

	"github.com/murmur-go/mur/runtime/driver"
)

// templateRe finds {{…}} placeholders (DRV-7).
var templateRe = regexp.MustCompile(`\{\{(.*?)\}\}`)

// memberName is a roster member name (formations.md ROS: members[].name).
var memberName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// workID is a background command's id (capsule.md id format).
var workID = regexp.MustCompile(`wrk_[0-9a-f]{32}`)

func knownTemplate(name string) bool {
	switch name {
	case "task", "tool_result", "member_answer", "work_id":
		return true
	}
	m, ok := strings.CutPrefix(name, "member_answer:")
	return ok && memberName.MatchString(m)
}

// Fence markers (tools.md FENCE-1).
const (
	fenceOpen  = "<untrusted-content source="
	fenceClose = "\n</untrusted-content>"
)

// fence is one fenced block found in a text.
type fence struct{ source, content string }

// fences returns the fenced blocks of s in order. An opening marker starts s or
// a line; the source ends at the first '>' (FENCE-2 turns '>' in a source into
// '_'); the content runs to the first closing marker after it (FENCE-3 keeps
// forged markers out of the content).
func fences(s string) []fence {
	var out []fence
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], fenceOpen)
		if j < 0 {
			break
		}
		start := i + j
		i = start + len(fenceOpen)
		if start > 0 && s[start-1] != '\n' {
			continue
		}
		end := strings.Index(s[i:], ">\n")
		if end < 0 || strings.Contains(s[i:i+end], "\n") {
			continue
		}
		source := s[i : i+end]
		body := i + end + 2
		// The content's own trailing newline stays inside; an empty content
		// leaves the closing marker right after the opening line's newline.
		closeAt := strings.Index(s[body-1:], fenceClose)
		if closeAt < 0 {
			continue
		}
		content := ""
		if closeAt > 0 {
			content = s[body : body-1+closeAt]
		}
		out = append(out, fence{source: source, content: content})
		i = body - 1 + closeAt + len(fenceClose)
	}
	return out
}

// unfence returns the content of s's first fence if s starts with one,
// dropping the notes after it (DRV-7 {{tool_result}}); else s.
func unfence(s, sourcePrefix string) string {
	if !strings.HasPrefix(s, fenceOpen+sourcePrefix) {
		return s
	}
	if fs := fences(s); len(fs) > 0 {
		return fs[0].content
	}
	return s
}

// vars are the template values of one call (DRV-7).
type vars struct {
	task, toolResult, workID string
	messages                 []driver.Message
}

func readVars(msgs []driver.Message) *vars {
	v := &vars{task: taskText(msgs), messages: msgs}
	if r, ok := lastToolResult(msgs); ok {
		v.toolResult = unfence(r, "")
	}
	v.workID = lastWorkID(msgs)
	return v
}

// taskText is the first user message's text, or the content inside its
// task:<origin> fence (LOOP-21).
func taskText(msgs []driver.Message) string {
	for _, m := range msgs {
		if m.Role == driver.RoleUser {
			return unfence(m.Text(), "task:")
		}
	}
	return ""
}

func toolResults(m driver.Message) []string {
	var out []string
	for _, b := range m.Blocks {
		if b.Type == driver.BlockToolResult {
			out = append(out, b.Content)
		}
	}
	return out
}

func lastToolResult(msgs []driver.Message) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if rs := toolResults(msgs[i]); len(rs) > 0 {
			return rs[len(rs)-1], true
		}
	}
	return "", false
}

// lastWorkID is the last wrk_… id in the newest tool result holding one.
func lastWorkID(msgs []driver.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		rs := toolResults(msgs[i])
		for j := len(rs) - 1; j >= 0; j-- {
			if ids := workID.FindAllString(rs[j], -1); len(ids) > 0 {
				return ids[len(ids)-1]
			}
		}
	}
	return ""
}

// memberAnswer is the content of the last member: (or member:<name>) fence in
// the newest user message holding one (tools.md RND-4).
func (v *vars) memberAnswer(member string) string {
	for i := len(v.messages) - 1; i >= 0; i-- {
		m := v.messages[i]
		if m.Role != driver.RoleUser {
			continue
		}
		answer, found := "", false
		for _, f := range fences(m.Text()) {
			name, ok := strings.CutPrefix(f.source, "member:")
			if ok && (member == "" || name == member) {
				answer, found = f.content, true
			}
		}
		if found {
			return answer
		}
	}
	return ""
}

// expand replaces every template in s; unknown ones cannot occur (Load
// refused them).
func (v *vars) expand(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return templateRe.ReplaceAllStringFunc(s, func(m string) string {
		switch name := m[2 : len(m)-2]; name {
		case "task":
			return v.task
		case "tool_result":
			return v.toolResult
		case "work_id":
			return v.workID
		case "member_answer":
			return v.memberAnswer("")
		default:
			if member, ok := strings.CutPrefix(name, "member_answer:"); ok {
				return v.memberAnswer(member)
			}
			return m
		}
	})
}

// expandValue expands every string of an input value, recursively.
func (v *vars) expandValue(x any) any {
	switch t := x.(type) {
	case string:
		return v.expand(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = v.expandValue(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = v.expandValue(e)
		}
		return out
	default:
		return x
	}
}
