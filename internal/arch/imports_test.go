package arch

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/murmur-go/mur"

// rules maps a package (module-relative; "x/..." covers x and everything under
// it) to the module packages it may import. Standard library and third-party
// imports are not restricted here. The most specific rule wins.
var rules = map[string][]string{
	"a2a":                 {},
	"a2a/client":          {"a2a"},
	"agentcard":           {"a2a"},
	"door":                {"a2a", "agentcard", "internal/task", "internal/credential", "internal/diag"},
	"internal/diag":       {},
	"internal/task":       {"a2a"},
	"internal/credential": {"a2a"},
	"internal/arch":       {},
	"internal/golden":     {},
	"internal/testmur":    {},
	// The runtime never reaches the door or the launcher: it satisfies the
	// door's needs through internal/task and meets formations through fds.
	"runtime/...": {"a2a", "a2a/client", "internal/diag", "internal/task", "internal/credential", "runtime/..."},
	// The launcher reaches capsules only by exec, fds and HTTP; it reads
	// manifests and stores (admission, BIND-1) through the runtime's two
	// leaf packages for them.
	"launcher/...":    {"a2a", "a2a/client", "agentcard", "internal/diag", "internal/credential", "runtime/manifest", "runtime/store", "launcher/..."},
	"conformance/...": {"a2a", "a2a/client", "conformance/..."},
	"openapi":         {},
	"cmd/...":         {"..."},
}

// anywhere lists the test-helper packages every package may import: they
// import the standard library only (their own rules above say so).
var anywhere = []string{"internal/golden", "internal/testmur"}

type pkg struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	checked := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		rel, ok := relative(p.ImportPath)
		if !ok {
			continue
		}
		allowed, found := ruleFor(rel)
		if !found {
			t.Errorf("package %s has no import rule: add it to rules and STYLE.md §2", rel)
			continue
		}
		checked++
		for _, imp := range p.Imports {
			irel, ok := relative(imp)
			if !ok {
				continue
			}
			if !permits(allowed, irel) {
				t.Errorf("%s imports %s, which STYLE.md §2 forbids", rel, irel)
			}
		}
	}
	if checked == 0 {
		t.Fatal("go list reported no package of this module")
	}
}

func relative(path string) (string, bool) {
	if path == module {
		return "", true
	}
	return strings.CutPrefix(path, module+"/")
}

func ruleFor(rel string) ([]string, bool) {
	best, bestLen, found := []string(nil), -1, false
	for k, v := range rules {
		if match(k, rel) && len(k) > bestLen {
			best, bestLen, found = v, len(k), true
		}
	}
	return best, found
}

func permits(allowed []string, imp string) bool {
	for _, a := range slices.Concat(anywhere, allowed) {
		if match(a, imp) {
			return true
		}
	}
	return false
}

// match reports whether rel is pattern, or under it when pattern ends in "/...".
func match(pattern, rel string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return rel == base || strings.HasPrefix(rel, base+"/")
	}
	return rel == pattern
}

// TestPermitsAnywhere: the test helpers are importable by every package,
// even one whose rule allows nothing else.
func TestPermitsAnywhere(t *testing.T) {
	for _, rel := range []string{"a2a", "door", "runtime/store", "cmd/mur"} {
		allowed, _ := ruleFor(rel)
		for _, helper := range []string{"internal/golden", "internal/testmur"} {
			if !permits(allowed, helper) {
				t.Errorf("%s may not import %s", rel, helper)
			}
		}
	}
	if a2a, _ := ruleFor("a2a"); permits(a2a, "internal/diag") {
		t.Error("a2a may import internal/diag")
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, rel string
		want         bool
	}{
		{"a2a", "a2a", true},
		{"a2a", "a2a/client", false},
		{"runtime/...", "runtime", true},
		{"runtime/...", "runtime/driver/openai", true},
		{"runtime/...", "runtimex", false},
		{"...", "door", true},
	}
	for _, tt := range tests {
		if got := match(tt.pattern, tt.rel); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.rel, got, tt.want)
		}
	}
}
