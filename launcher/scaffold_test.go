package launcher

import (
	"regexp"
	"strings"
	"testing"
)

// keyLine matches a YAML line that opens a key ("key:" or "- key:").
var keyLine = regexp.MustCompile(`^\s*(- )?[a-z_]+:`)

// TestScaffoldEveryKeyCommented: FCLI-9 wants every key of roster.yaml and
// both murmur.yaml commented, on its line or on a comment line just above;
// the scripts are FCLI-9's exact texts and carry none.
func TestScaffoldEveryKeyCommented(t *testing.T) {
	t.Parallel()
	for _, f := range Scaffold("crew") {
		if strings.HasSuffix(f.Path, "script.yaml") {
			continue
		}
		lines := strings.Split(f.Text, "\n")
		for i, l := range lines {
			if !keyLine.MatchString(l) || strings.Contains(l, "#") {
				continue
			}
			if i > 0 && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "#") {
				continue
			}
			t.Errorf("%s:%d: key without a comment: %q", f.Path, i+1, l)
		}
	}
}
