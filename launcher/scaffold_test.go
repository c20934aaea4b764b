package launcher

import (
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/manifest"
)

// keyLine matches a YAML line that opens a key ("key:" or "- key:").
var keyLine = regexp.MustCompile(`^\s*(- )?[a-z_]+:`)

// TestScaffoldEveryKeyCommented: FCLI-9 wants every key of roster.yaml and
// both murmur.yaml commented, on its line or on a comment line just above;
// the scripts are FCLI-9's exact texts and carry none.
func TestScaffoldEveryKeyCommented(t *testing.T) {
	t.Parallel()
	for _, p := range manifest.Presets {
		for _, f := range Scaffold("crew", p) {
			if !strings.HasSuffix(f.Path, ".yaml") || strings.HasSuffix(f.Path, "script.yaml") {
				continue
			}
			checkCommented(t, p.Name+": "+f.Path, f.Text)
		}
	}
}

// TestScaffoldFiles pins every file mur new --roster writes, per --driver.
func TestScaffoldFiles(t *testing.T) {
	t.Parallel()
	for _, p := range manifest.Presets {
		var b strings.Builder
		for _, f := range Scaffold("crew", p) {
			b.WriteString("=== " + f.Path + "\n" + f.Text)
		}
		b.WriteString("=== stdout\n" + ScaffoldSummary("crew", p))
		golden.Check(t, "scaffold-"+p.Name, b.String())
	}
}

func checkCommented(t *testing.T, path, text string) {
	t.Helper()
	{
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			if !keyLine.MatchString(l) || strings.Contains(l, "#") {
				continue
			}
			if i > 0 && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "#") {
				continue
			}
			t.Errorf("%s:%d: key without a comment: %q", path, i+1, l)
		}
	}
}
