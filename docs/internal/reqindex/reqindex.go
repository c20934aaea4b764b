// Package reqindex reads requirement definitions from the specification and
// fills docs/requirements.md's rule column with them (go run
// ./docs/internal/genreq); docs' TestRequirementIndex reads the rows back.
package reqindex

import (
	"bufio"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// idPattern is a requirement ID: DOOR-7, ROS-3, METH-SM-1.
const idPattern = `[A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*)*-[0-9]+`

// definitionStart is the first line of a definition: "- **ID** text",
// "- **ID Title.** text" or "**ID (MUST) Title** text".
var definitionStart = regexp.MustCompile(`^(?:- )?\*\*(` + idPattern + `)((?:[ .:][^*]*)?)\*\*(.*)$`)

// Definitions returns each ID the document defines with its text: the
// definition's first line and its continuation lines, up to a blank line,
// the next definition, bullet, heading or table, joined by single spaces.
func Definitions(doc string) map[string]string {
	defs := map[string]string{}
	var id string
	var text []string
	flush := func() {
		if id != "" {
			if _, dup := defs[id]; !dup {
				defs[id] = strings.Join(strings.Fields(strings.Join(text, " ")), " ")
			}
		}
		id, text = "", nil
	}
	sc := bufio.NewScanner(strings.NewReader(doc))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := definitionStart.FindStringSubmatch(line); m != nil {
			flush()
			id = m[1]
			text = []string{strings.TrimSpace(m[2] + " " + m[3])}
			continue
		}
		trimmed := strings.TrimSpace(line)
		if id == "" {
			continue
		}
		if trimmed == "" || strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "|") {
			flush()
			continue
		}
		text = append(text, trimmed)
	}
	flush()
	return defs
}

// row is a requirement row of the index: | ID | summary | rule |.
var row = regexp.MustCompile(`^\|\s*(` + idPattern + `)\s*\|(.*)\|\s*$`)

// Cells splits a table row's inner text on the pipes that are not escaped.
func Cells(inner string) []string {
	var cells []string
	var b strings.Builder
	for i := 0; i < len(inner); i++ {
		switch {
		case inner[i] == '\\' && i+1 < len(inner):
			b.WriteByte(inner[i])
			b.WriteByte(inner[i+1])
			i++
		case inner[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(inner[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// cell is text fit for a table cell: every pipe escaped once.
func cell(text string) string {
	return strings.ReplaceAll(strings.ReplaceAll(text, `\|`, `|`), `|`, `\|`)
}

// Fill rewrites the index: each requirement row gets the spec's rule in its
// third cell, each table head a third column. It returns the IDs with no
// rule from either source, sorted.
func Fill(doc string, rules map[string]string) (string, []string) {
	var missing []string
	lines := strings.Split(doc, "\n")
	for i, line := range lines {
		switch {
		case line == "| ID | requires |":
			lines[i] = "| ID | requires | rule (the spec's words) |"
		case line == "|---|---|":
			lines[i] = "|---|---|---|"
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		cells := Cells(m[2])
		summary, rule := cells[0], ""
		if len(cells) > 1 {
			rule = cells[1]
		}
		if r, ok := rules[m[1]]; ok {
			rule = cell(r)
		}
		if rule == "" {
			missing = append(missing, m[1])
		}
		lines[i] = fmt.Sprintf("| %s | %s | %s |", m[1], summary, rule)
	}
	sort.Strings(missing)
	return strings.Join(lines, "\n"), missing
}
