package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/manifest"
)

// row is one table row of a docs file, found by the first cell.
type row struct {
	line  int      // 1-based
	text  string   // the whole line
	match []string // the row pattern's submatches; match[1] names the row
}

// tableRows reads the rows of file (in docs/) that pattern matches, by
// match[1], failing on a name listed twice.
func tableRows(t *testing.T, file string, pattern *regexp.Regexp) map[string]row {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]row{}
	for i, line := range strings.Split(string(data), "\n") {
		m := pattern.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if first, dup := rows[m[1]]; dup {
			t.Errorf("docs/%s:%d lists %s again (first at line %d): keep one row", file, i+1, m[1], first.line)
			continue
		}
		rows[m[1]] = row{line: i + 1, text: line, match: m}
	}
	if len(rows) == 0 {
		t.Fatalf("docs/%s has no row of the form %s", file, pattern)
	}
	return rows
}

// keyRow is a reference row: its first cell is the key in backticks.
var keyRow = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|")

// checkKeys compares the keys file documents with the keys the decoder in
// pkg takes; later says which are LATER.
func checkKeys(t *testing.T, file, pkg, format string, keys []string, later map[string]bool) {
	t.Helper()
	shown := "docs/" + file
	rows := tableRows(t, file, keyRow)
	codes := declaredCodes(t)
	accepted := map[string]bool{}
	for _, k := range keys {
		accepted[k] = true
		r, ok := rows[k]
		switch {
		case !ok:
			t.Errorf("%s does not document %s key %q, which %s takes: add a row\n"+
				"| `%s` | <type> | <default> | <what it does or grants> | <diagnostic codes> |\n"+
				"to the table of its block (under its parent key's row)", shown, format, k, pkg, k)
		case later[k] && !strings.Contains(r.text, "**LATER**"):
			t.Errorf("%s:%d: %q is LATER in %s (validated, then ignored with W-SEC-019): say **LATER** in its row", shown, r.line, k, pkg)
		case !later[k] && strings.Contains(r.text, "**LATER**"):
			t.Errorf("%s:%d: %q is no longer LATER in %s: drop **LATER** from its row and say what it does", shown, r.line, k, pkg)
		}
	}
	var extra []string
	for k := range rows {
		if !accepted[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		t.Errorf("%s:%d documents %q, which %s does not take: remove its row (or add the key to the decoder)", shown, rows[k].line, k, pkg)
	}
	for k, r := range rows {
		for _, c := range codeRef.FindAllString(r.text, -1) {
			if !codes[c] {
				t.Errorf("%s:%d: the row of %q names %s, which runtime/diag does not declare: correct the code", shown, r.line, k, c)
			}
		}
	}
}

// TestManifestReference: docs/manifest.md documents exactly the keys
// runtime/manifest's decoder knows, LATER ones marked, with real codes.
func TestManifestReference(t *testing.T) {
	var keys []string
	later := map[string]bool{}
	for _, k := range manifest.Keys() {
		keys = append(keys, k.Path)
		later[k.Path] = k.Later
	}
	if len(keys) < 50 {
		t.Fatalf("manifest.Keys() = %d keys; the probe no longer reaches the decoder's tables", len(keys))
	}
	checkKeys(t, "manifest.md", "runtime/manifest", "murmur.yaml", keys, later)
}

// TestRosterReference: docs/roster.md documents exactly the keys
// launcher/roster's parser takes, with real codes.
func TestRosterReference(t *testing.T) {
	keys := roster.Keys()
	if len(keys) < 5 {
		t.Fatalf("roster.Keys() = %v; the key tables are gone", keys)
	}
	checkKeys(t, "roster.md", "launcher/roster", "roster.yaml", keys, nil)
}

// codeRef is a diagnostic code as the reference names it.
var codeRef = regexp.MustCompile(`\b[EW]-[A-Z]+(?:-[A-Z]+)*-\d{3}\b`)

// declaredCodes reads the codes runtime/diag declares (`X Code = "E-…"`).
func declaredCodes(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "runtime", "diag", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`\bCode\s*=\s*"([EW]-[A-Z]+(?:-[A-Z]+)*-\d{3})"`)
	codes := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllStringSubmatch(string(data), -1) {
			codes[m[1]] = true
		}
	}
	if len(codes) < 50 {
		t.Fatalf("read %d codes from runtime/diag; its declarations changed form", len(codes))
	}
	return codes
}
