package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/murmur-go/mur/docs/internal/reqindex"
)

// requirementID is a requirement ID as the code cites it: DOOR-7, ROS-3,
// METH-SM-1. Diagnostic codes (E-ROS-008, W-SEC-019) have the same shape and
// are told apart by diagnosticCode.
var requirementID = regexp.MustCompile(`(?:^|[^A-Za-z0-9_-])([A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*)*-[0-9]+)(?:[^A-Za-z0-9_]|$)`)

var diagnosticCode = regexp.MustCompile(`^[EW]-[A-Z]+(?:-[A-Z]+)*-[0-9]+$`)

// notRequirementIDs are tokens of requirementID's shape in the code that
// are not requirement IDs, each with why.
var notRequirementIDs = map[string]string{
	"SHA-256":                 "a hash function",
	"UTF-8":                   "an encoding",
	"UTF-16":                  "an encoding",
	"P-256":                   "an elliptic curve (FIPS 186)",
	"P-384":                   "an elliptic curve (FIPS 186)",
	"P-521":                   "an elliptic curve (FIPS 186)",
	"W-42":                    "test data: a work id",
	"WORKER-0123":             "test data: a member name in a case test",
	"CARD-CACHE-001":          "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CARD-CACHE-002":          "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CARD-DISC-001":           "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CARD-PROTO-001":          "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CARD-PROTO-002":          "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CARD-SIGN-003":           "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CARD-STRUCT-001":         "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-CANCEL-001":         "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-CANCEL-002":         "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-CANCEL-003":         "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-EXECUTION-MODE-001": "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-EXECUTION-MODE-002": "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-GET-001":            "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-GET-002":            "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-LIST-002":           "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-LIST-004":           "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-SEND-001":           "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-SEND-002":           "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-SEND-003":           "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-STREAM-001":         "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
	"CORE-STREAM-003":         "the A2A TCK's requirement ID a conformance check names (a2aproject/a2a-tck)",
}

// citedIDs returns every requirement ID the module's Go files cite, code
// and tests, with the first file citing each. It walks the tree from the
// module root, leaving out hidden directories and docs/ itself.
func citedIDs(t *testing.T) map[string]string {
	t.Helper()
	cited := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != ".." && (strings.HasPrefix(d.Name(), ".") || path == filepath.Join("..", "docs")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			// The pattern's guards consume a character, so a line's
			// overlapping matches ("DRV-5/DRV-6") are found by rescanning.
			for rest := line; ; {
				loc := requirementID.FindStringSubmatchIndex(rest)
				if loc == nil {
					break
				}
				id := rest[loc[2]:loc[3]]
				rest = rest[loc[3]:]
				if diagnosticCode.MatchString(id) || notRequirementIDs[id] != "" {
					continue
				}
				if _, ok := cited[id]; !ok {
					cited[id] = filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cited) < 100 {
		t.Fatalf("found %d cited requirement IDs; the walk no longer reaches the tree", len(cited))
	}
	return cited
}

var indexRow = regexp.MustCompile(`^\|\s*([A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*)*-[0-9]+)\s*\|(.*)\|\s*$`)

// TestRequirementIndex: docs/requirements.md has one row, with a summary
// and the rule's text, for every requirement ID a Go file cites, and none
// for an ID no Go file cites.
func TestRequirementIndex(t *testing.T) {
	const file, shown = "requirements.md", "docs/requirements.md"
	indexed := map[string]int{}
	for id, r := range tableRows(t, file, indexRow) {
		indexed[id] = r.line
		cells := reqindex.Cells(r.match[2])
		if cells[0] == "" {
			t.Errorf("%s:%d: %s has no summary: write what it requires in one line", shown, r.line, id)
		}
		if len(cells) != 2 || cells[1] == "" {
			t.Errorf("%s:%d: %s has no rule: run go run ./docs/internal/genreq -spec <spec dir>, or write the rule in its third cell if the spec does not define it", shown, r.line, id)
		}
	}
	cited := citedIDs(t)
	var missing, stale []string
	for id := range cited {
		if _, ok := indexed[id]; !ok {
			missing = append(missing, id)
		}
	}
	for id := range indexed {
		if _, ok := cited[id]; !ok {
			stale = append(stale, id)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	for _, id := range missing {
		t.Errorf("%s has no row for %s, cited in %s: add\n| %s | <what the spec requires, in one line of our own words> | |\n"+
			"to the table of the spec file that defines it, then run go run ./docs/internal/genreq -spec <spec dir> for its rule "+
			"(or, if %s is not a requirement ID, add it to notRequirementIDs in docs/requirements_test.go)",
			shown, id, cited[id], id, id)
	}
	for _, id := range stale {
		t.Errorf("%s:%d lists %s, which no Go file cites any more: remove its row", shown, indexed[id], id)
	}
}
