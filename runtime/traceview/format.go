package traceview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// HeaderWidth is the width, in columns, of a section header (CLI-10).
const HeaderWidth = 49

// LabelWidth is the column a labelled value starts at (CLI-10).
const LabelWidth = 12

// CutAt is where long texts are cut, before a trailing "…" (CLI-10).
const CutAt = 120

// header returns "── <Name> " padded with "─" to HeaderWidth columns.
func header(name string) string {
	h := "── " + name + " "
	if n := HeaderWidth - utf8.RuneCountInString(h); n > 0 {
		h += strings.Repeat("─", n)
	}
	return h
}

// labelled returns "<label> <value>" with the value at column LabelWidth;
// a label too long for that keeps one space (murmur's `capabilities: …`).
func labelled(label, value string) string {
	return fmt.Sprintf("%-*s %s", LabelWidth-1, label, value)
}

// Duration renders milliseconds as CLI-10's <dur>: `<s.s>s` under a minute,
// `<m>m<ss>s` under an hour, else `<h>h<mm>m`. Each unit is rounded down.
func Duration(ms int64) string {
	if ms < 0 {
		ms = 0
	}
	switch {
	case ms < 60_000:
		return fmt.Sprintf("%d.%ds", ms/1000, ms%1000/100)
	case ms < 3_600_000:
		return fmt.Sprintf("%dm%02ds", ms/60_000, ms%60_000/1000)
	}
	return fmt.Sprintf("%dh%02dm", ms/3_600_000, ms%3_600_000/60_000)
}

// Cut returns s on one line, cut at CutAt characters with "…" appended when
// longer (CLI-10's <x≤120>). Line breaks and tabs become spaces first.
func Cut(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
	if utf8.RuneCountInString(s) <= CutAt {
		return s
	}
	r := []rune(s)
	return string(r[:CutAt]) + "…"
}

// ID8 returns the last 8 hex digits of an id, after its prefix (CLI-10's
// <id8>): …0000a1b2 → 0000a1b2. The first digits are the id's timestamp,
// the same for every task of a session; the last ones tell them apart.
func ID8(id string) string {
	if i := strings.IndexByte(id, '_'); i >= 0 {
		id = id[i+1:]
	}
	if len(id) > 8 {
		id = id[len(id)-8:]
	}
	return id
}

// compactJSON returns raw as compact JSON, "" for an absent or null value.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// list joins items with ", ", or "none".
func list(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}
