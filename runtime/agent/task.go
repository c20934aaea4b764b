package agent

import (
	"encoding/json"
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/tool"
)

// Lane is task_start.lane (LOOP-4).
func Lane(o a2a.Origin) string {
	switch o {
	case a2a.OriginUser:
		return "user"
	case a2a.OriginPeer:
		return "peer"
	}
	return "bg"
}

// PartsBytes is task_start.message_parts_bytes: text bytes plus data parts'
// JSON bytes.
func PartsBytes(m a2a.Message) int {
	n := 0
	for _, p := range m.Parts {
		switch {
		case p.Text != nil:
			n += len(*p.Text)
		case p.Data != nil:
			n += len(p.Data)
		case p.URL != nil:
			n += len(*p.URL)
		default:
			n += len(p.Raw)
		}
	}
	return n
}

// TaskText is LOOP-21's first user message: the parts in order (data as
// compact JSON) joined by "\n", fenced under task:<origin> when untrusted.
func TaskText(m a2a.Message, p tasktable.Provenance) string {
	text := PartsText(m)
	if p.Trust == a2a.TrustUntrusted {
		return tool.Fence(tool.SourceTask+string(p.Origin), text)
	}
	return text
}

// PartsText is LOOP-21's join of a message's parts: text parts and URLs as
// they are, data parts as compact JSON, joined by "\n" (also a reply's text,
// input.md INP-5).
func PartsText(m a2a.Message) string {
	var parts []string
	for _, pt := range m.Parts {
		switch {
		case pt.Text != nil:
			parts = append(parts, *pt.Text)
		case pt.Data != nil:
			var v any
			if json.Unmarshal(pt.Data, &v) == nil {
				parts = append(parts, tool.JSON(v))
			} else {
				parts = append(parts, string(pt.Data))
			}
		case pt.URL != nil:
			parts = append(parts, *pt.URL)
		}
	}
	return strings.Join(parts, "\n")
}
