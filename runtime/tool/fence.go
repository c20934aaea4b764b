package tool

import (
	"strings"
	"unicode/utf8"
)

// Fence sources (FENCE-2).
const (
	SourceTool       = "tool:"
	SourceMember     = "member:"
	SourceDelegation = "delegation:"
	SourceTask       = "task:"
	SourceSkill      = "skill:"
)

const (
	fenceClose  = "</untrusted-content>"
	neutraliser = "!MURMUR-NEUTRALISED!"
)

// Fence wraps content in an untrusted-content block (FENCE-1):
// "<untrusted-content source=<source>>\n<content>\n</untrusted-content>". The
// content's own trailing newline stays inside. Markers forged in content or
// source are neutralised (FENCE-3) and the source is sanitised (FENCE-2). It is
// the one function that writes a fence (FENCE-4).
func Fence(source, content string) string {
	var b strings.Builder
	b.Grow(len(content) + len(source) + 64)
	b.WriteString("<untrusted-content source=")
	b.WriteString(Neutralise(sanitiseSource(source)))
	b.WriteString(">\n")
	b.WriteString(Neutralise(content))
	b.WriteString("\n")
	b.WriteString(fenceClose)
	return b.String()
}

// sanitiseSource turns '>' into '_' and CR/LF into a space (FENCE-2).
func sanitiseSource(s string) string {
	return strings.NewReplacer(">", "_", "\r", " ", "\n", " ").Replace(s)
}

// Neutralise inserts "!MURMUR-NEUTRALISED!" after each '<' that is followed by
// "untrusted-content" or "/untrusted-content" (ASCII case-insensitive),
// keeping the casing; nothing else changes. It is idempotent (FENCE-3).
func Neutralise(s string) string {
	if !strings.Contains(strings.ToLower(s), "untrusted-content") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 32)
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] != '<' {
			continue
		}
		rest := s[i+1:]
		if hasPrefixFold(rest, "untrusted-content") || hasPrefixFold(rest, "/untrusted-content") {
			b.WriteString(neutraliser)
		}
	}
	return b.String()
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// CutLimit is the most bytes of output kept before TOOL-10's cut.
const CutLimit = 64 << 10

// cutMarker follows cut output (TOOL-10).
const cutMarker = "\n[output cut at 64 KiB]"

// Cut64 keeps at most 65 536 bytes of s ending on a UTF-8 boundary and appends
// "\n[output cut at 64 KiB]" when it cut (TOOL-10). truncated reports a cut.
func Cut64(s string) (out string, truncated bool) {
	if len(s) <= CutLimit {
		return s, false
	}
	n := CutLimit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + cutMarker, true
}
