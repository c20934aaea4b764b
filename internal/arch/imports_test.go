package arch

import (
	"slices"
	"strings"
	"testing"
)

const module = "github.com/murmur-go/mur"

// rules maps a package (module-relative; "x/..." covers x and everything under
// it) to the module packages it may import. Standard library and third-party
// imports are not restricted here. The most specific rule wins.
var rules = map[string][]string{
	"a2a":                {},
	"a2a/client":         {"a2a"},
	"agentcard":          {"a2a"},
	"door":               {"a2a", "agentcard", "runtime/tasktable", "runtime/credential", "runtime/diag", "runtime/peerplane"},
	"runtime/diag":       {},
	"runtime/tasktable":  {"a2a"},
	"runtime/credential": {"a2a"},
	// The peer plane's handle format and the door↔runtime seam of
	// GET /resources/peer/<handle>: the standard library only.
	"runtime/peerplane": {},
	// The lines mur processes exchange: the standard library only, so every
	// writer and reader of a line can import it.
	"runtime/wire": {},
	// Replacing a file atomically: the standard library only.
	"runtime/atomicfile": {},
	// mur's child processes over os/exec, and how a wait status reads: the
	// standard library only.
	"runtime/supervisor": {},
	"internal/arch":      {},
	"internal/golden":    {},
	// The fake harness binary of the process tests (process.md PTEST-1)
	// speaks MCP to the bridge and knows nothing of mur; fakemodel serves
	// the drivers' fakes in harness mode as a process (PTEST-6).
	"internal/harnesstest/...": {"runtime/driver/..."},
	// The harness's dialects, runs and event streams (process.md §13) meet
	// the session only through the session, never the other way round; a
	// harness thread file sits in its context's conversation directory.
	// A harness CLI starts as a tool process does (runtime/proc) and reaches
	// its bridge through the dialect's MCP configuration.
	"runtime/harness":   {"runtime/atomicfile", "runtime/conversation", "runtime/supervisor", "runtime/diag", "runtime/manifest", "runtime/proc", "runtime/tool", "runtime/harness/bridge"},
	"internal/testmur":  {"runtime/wire"},
	"internal/otlptest": {},
	// The door measured from outside its process: the built binary and the
	// wire's lines, as any A2A client would see it.
	"door/e2e": {"a2a", "runtime/wire"},
	// The scripted test door's executor: the task table and its texts.
	"internal/doortest": {"a2a", "runtime/tasktable"},
	// Capsules served in a test's process, and a formation's channel as a
	// launcher would write it.
	"internal/capsuletest": {"a2a", "a2a/client", "capsule", "runtime/credential", "runtime/formation", "runtime/murhome", "runtime/session", "runtime/wire"},
	// The runtime never reaches the door or the launcher: it satisfies the
	// door's needs through runtime/tasktable and meets formations through fds.
	"runtime/...": {"a2a", "a2a/client", "runtime/diag", "runtime/tasktable", "runtime/credential", "runtime/peerplane", "runtime/..."},
	// A driver speaks to a model and knows nothing else of the runtime.
	"runtime/driver/...": {"a2a", "runtime/diag", "runtime/driver/..."},
	// The tools: the core (Tool, Result, the registry, the task state) names
	// no concrete tool; a tool package builds on the core and the runtime's
	// leaf packages, never on a sibling tool or on the session that runs it.
	// A new tool lands in a package of its own under runtime/tool/.
	"runtime/tool": {"a2a", "runtime/diag", "runtime/manifest", "runtime/trace"},
	// The bridge (a process session's loopback MCP server) speaks the wire
	// and calls a dispatcher it is handed; it knows tools only by their
	// specs and never the session that answers them.
	"runtime/harness/bridge": {"runtime/tool"},
	// Delegation's process side, shared by delegate-task and submit-plan's
	// capsule steps: a leaf below the tools, which knows none of them.
	"runtime/spawn":    {"a2a", "a2a/client", "agentcard", "runtime/atomicfile", "runtime/supervisor", "runtime/diag", "runtime/manifest", "runtime/store", "runtime/formation", "runtime/wire"},
	"runtime/tool/...": toolImports,
	// The trace records and their writer know no secret's format: the
	// session hands the writer its redaction (Writer.Redact).
	"runtime/trace": {"a2a", "runtime/diag"},
	// Spans and metrics: the OpenTelemetry SDK and Prometheus, over the
	// trace records it counts; no other runtime package.
	"runtime/telemetry": {"runtime/trace"},
	// The launcher reaches capsules only by exec, fds and HTTP; it reads
	// manifests and stores (admission, BIND-1) and lays out formation and
	// records directories (DIR-1, DIR-2, RET-1) through the runtime's leaf
	// packages for them.
	"launcher/...":    {"a2a", "a2a/client", "agentcard", "runtime/diag", "runtime/credential", "runtime/manifest", "runtime/murhome", "runtime/store", "runtime/supervisor", "runtime/wire", "launcher/..."},
	"conformance/...": {"a2a", "conformance/..."}, // it judges a2a/client's peers, so never through it
	"openapi":         {},
	"docs/...":        {"docs/..."}, // the reference; its tests read the decoders' key tables, genreq fills requirements.md
	// mur view reads what sessions leave (running records, records
	// directories, traces) and watches doors as an A2A client, as `mur ps`
	// and `mur stop` do; it is reached only from cmd/mur.
	"launcher/view/...": {"a2a", "a2a/client", "runtime/diag", "runtime/murhome", "runtime/trace", "launcher/view/..."},
	// A capsule as a value: the session behind its door, above both.
	"capsule/...": {"a2a", "a2a/client", "agentcard", "door", "runtime/...", "capsule/..."},
	"cmd/...":     {"..."},
	// An example's helper is an A2A client like any other.
	"examples/...": {"a2a", "a2a/client"},
}

// toolImports are what a package under runtime/tool/ may import.
var toolImports = []string{
	"a2a", "a2a/client", "agentcard", "runtime/diag", "runtime/credential", "runtime/peerplane",
	"runtime/tool", "runtime/proc", "runtime/manifest", "runtime/store", "runtime/trace", "runtime/formation", "runtime/wire",
	"runtime/spawn", // delegation's processes, which delegate-task and plan's capsule steps share
	// The span helpers: a tool that calls out (call-member, delegate-task)
	// makes the A2A client span its requests carry (OTEL-5).
	"runtime/telemetry",
}

// anywhere lists the test-helper packages every package may import: they
// import no package of this module (their own rules above say so);
// internal/otlptest decodes OTLP with go.opentelemetry.io/proto/otlp.
var anywhere = []string{"internal/golden", "internal/testmur", "internal/otlptest"}

type pkg struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

func TestImportRules(t *testing.T) {
	for _, p := range listPackages(t) {
		rel, _ := relative(p.ImportPath)
		allowed, found := ruleFor(rel)
		if !found {
			t.Errorf("package %s has no import rule: add it to rules and STYLE.md §2", rel)
			continue
		}
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
}

func relative(path string) (string, bool) {
	if path == module {
		return "", true
	}
	return strings.CutPrefix(path, module+"/")
}

// ruleFor returns the most specific rule for rel: the one whose path is
// longest, an exact path before "path/..." over the same path.
func ruleFor(rel string) ([]string, bool) {
	best, bestLen, found := []string(nil), -1, false
	for k, v := range rules {
		n := 2 * len(k)
		if base, ok := strings.CutSuffix(k, "/..."); ok {
			n = 2*len(base) - 1
		}
		if match(k, rel) && n > bestLen {
			best, bestLen, found = v, n, true
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
	if a2a, _ := ruleFor("a2a"); permits(a2a, "runtime/diag") {
		t.Error("a2a may import runtime/diag")
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

// TestRulesForbid: the rules refuse the edges ARCHITECTURE.md forbids, so
// TestImportRules fails on any of them (a tool package importing a sibling
// or the session, the tool core importing a tool, a driver importing the
// rest of the runtime), and allow the edges the tree is built on.
func TestRulesForbid(t *testing.T) {
	tests := []struct {
		pkg, imp string
		want     bool
	}{
		{"runtime/tool/plan", "runtime/tool/shell", false},
		{"runtime/trace", "runtime/peerplane", false},
		{"runtime/tool/member", "runtime/tool/status", false},
		{"runtime/tool/shell", "runtime/session", false},
		{"runtime/tool", "runtime/tool/shell", false},
		{"runtime/tool", "runtime/proc", false},
		{"runtime/harness/bridge", "runtime/session", false},
		{"runtime/harness/bridge", "runtime/tool", true},
		{"runtime/tool", "runtime/session", false},
		{"runtime/driver", "runtime/trace", false},
		{"runtime/driver/openai", "runtime/tool", false},
		{"runtime/driver/choice", "runtime/manifest", false},
		{"runtime/tool/plan", "runtime/tool", true},
		{"runtime/tool/shell", "runtime/proc", true},
		{"runtime/tool/member", "a2a/client", true},
		{"runtime/driver/choice", "runtime/driver/openai", true},
		{"runtime/session", "runtime/tool/shell", true},
		{"cmd/mur", "runtime/tool/member", true},
	}
	for _, tt := range tests {
		allowed, found := ruleFor(tt.pkg)
		if !found {
			t.Errorf("%s has no rule", tt.pkg)
			continue
		}
		if got := permits(allowed, tt.imp); got != tt.want {
			t.Errorf("%s may import %s = %v, want %v", tt.pkg, tt.imp, got, tt.want)
		}
	}
}
