package arch

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// layers is the order the module reads in, bottom first. A package imports
// only packages of its own layer or a lower one; the rules above then narrow
// what it may take inside that range.
//
//   - wire: the bytes mur exchanges with peers and its own processes
//     (the A2A types, the process-protocol lines); the standard library only.
//   - leaves: one vocabulary each, shared by the layers above and built only
//     on the wire and other leaves: diagnostics, the task table, credentials,
//     the peer-plane handle, the manifest, stores, trace records, the layout
//     of $MURMUR_HOME, the agent card and the A2A client. The door and the
//     runtime meet through leaves (the task table, the handle), never through
//     each other.
//   - door/runtime: the door serves A2A over HTTP; the runtime runs a session.
//   - launcher/view/conformance: clients of running sessions and doors:
//     formations, mur view, the conformance suite and the OpenAPI description.
//   - capsule: one door and one session assembled as a value.
//   - cmd: the commands, the reference docs and the examples.
//
// internal/ is test-only and outside the order: it may import any layer, and
// only tests and other test kits import it (TestInternalIsTestOnly).
var layers = []struct {
	name string
	pkgs []string
}{
	{"wire", []string{"a2a", "runtime/wire"}},
	{"leaves", []string{
		"a2a/client", "agentcard",
		"runtime/diag", "runtime/tasktable", "runtime/credential", "runtime/peerplane",
		"runtime/manifest", "runtime/store", "runtime/trace", "runtime/murhome", "runtime/atomicfile", "runtime/supervisor",
	}},
	{"door/runtime", []string{"door/...", "runtime/..."}},
	{"launcher/view/conformance", []string{"launcher/...", "conformance/...", "openapi/..."}},
	{"capsule", []string{"capsule/..."}},
	{"cmd", []string{"cmd/...", "docs/...", "examples/..."}},
}

// layerOf returns the index in layers of rel's most specific pattern, or -1
// for a package outside the order (internal/, the module root).
func layerOf(rel string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l.pkgs {
			n := 2 * len(p)
			if base, ok := strings.CutSuffix(p, "/..."); ok {
				n = 2*len(base) - 1
			}
			if match(p, rel) && n > bestLen {
				best, bestLen = i, n
			}
		}
	}
	return best
}

// testOnly reports whether rel is a test kit: under internal/.
func testOnly(rel string) bool { return match("internal/...", rel) }

// layerViolations returns one sentence per import of pkgs that runs against
// the layer order, and per package of the module that has no layer.
func layerViolations(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		rel, ok := relative(p.ImportPath)
		if !ok || testOnly(rel) {
			continue
		}
		from := layerOf(rel)
		if from < 0 {
			bad = append(bad, fmt.Sprintf("package %s has no layer: add it to layers", rel))
			continue
		}
		for _, imp := range p.Imports {
			irel, ok := relative(imp)
			if !ok {
				continue
			}
			if testOnly(irel) {
				bad = append(bad, fmt.Sprintf("%s (layer %s) imports the test kit %s outside a test", rel, layers[from].name, irel))
				continue
			}
			if to := layerOf(irel); to > from {
				bad = append(bad, fmt.Sprintf("%s (layer %s) imports %s (layer %s), above it", rel, layers[from].name, irel, layers[to].name))
			}
		}
	}
	return bad
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	out, errOut, code := testmur.Exec(t, exec.Command("go", "list", "-deps", "-json", module+"/..."))
	if code != 0 {
		t.Fatalf("go list: exit %d\n%s", code, errOut)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		if _, ok := relative(p.ImportPath); ok {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("go list reported no package of this module")
	}
	return pkgs
}

// TestLayers: no package of the tree imports one of a higher layer, and no
// production package imports internal/.
func TestLayers(t *testing.T) {
	for _, v := range layerViolations(listPackages(t)) {
		t.Error(v)
	}
}

// TestToolsBuiltInOnePlace: runtime/toolset is the one production importer
// of the concrete tool packages (runtime/tool/<name>); the session and
// everything above it reach a tool only through the core (runtime/tool) and
// the set the builder returns.
func TestToolsBuiltInOnePlace(t *testing.T) {
	for _, v := range toolBuilderViolations(listPackages(t)) {
		t.Error(v)
	}
}

// toolBuilderViolations returns one sentence per production import of a
// concrete tool package from outside runtime/tool/ and runtime/toolset.
func toolBuilderViolations(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		rel, ok := relative(p.ImportPath)
		if !ok || testOnly(rel) || rel == "runtime/toolset" || match("runtime/tool/...", rel) {
			continue
		}
		for _, imp := range p.Imports {
			irel, ok := relative(imp)
			if ok && irel != "runtime/tool" && match("runtime/tool/...", irel) {
				bad = append(bad, fmt.Sprintf("%s imports the concrete tool package %s: only runtime/toolset builds tools", rel, irel))
			}
		}
	}
	return bad
}

// TestToolsBuiltInOnePlaceRefuses: the check reports a session that names a
// tool package and passes the builder, a tool's own sibling-free imports
// and the core.
func TestToolsBuiltInOnePlaceRefuses(t *testing.T) {
	p := func(path string, imports ...string) pkg {
		q := pkg{ImportPath: module + "/" + path}
		for _, i := range imports {
			q.Imports = append(q.Imports, module+"/"+i)
		}
		return q
	}
	got := toolBuilderViolations([]pkg{
		p("runtime/session", "runtime/tool", "runtime/tool/shell"),
		p("capsule", "runtime/tool/peerfile"),
		p("runtime/toolset", "runtime/tool/shell", "runtime/tool/member"),
		p("runtime/tool/plan", "runtime/tool"),
		p("internal/capsuletest", "runtime/tool/member"),
	})
	want := []string{
		"runtime/session imports the concrete tool package runtime/tool/shell: only runtime/toolset builds tools",
		"capsule imports the concrete tool package runtime/tool/peerfile: only runtime/toolset builds tools",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations = %q, want %q", got, want)
	}
}

// TestLayersRefuse: the check reports an upward edge, a production import
// of a test kit and a package without a layer, and passes the edges the tree
// is built on.
func TestLayersRefuse(t *testing.T) {
	p := func(path string, imports ...string) pkg {
		q := pkg{ImportPath: module + "/" + path}
		for _, i := range imports {
			q.Imports = append(q.Imports, module+"/"+i)
		}
		return q
	}
	tests := []struct {
		pkg  pkg
		want string // "" for no violation
	}{
		{p("runtime/tasktable", "runtime/session"), "runtime/tasktable (layer leaves) imports runtime/session (layer door/runtime), above it"},
		{p("a2a", "runtime/diag"), "a2a (layer wire) imports runtime/diag (layer leaves), above it"},
		{p("runtime/wire", "a2a/client"), "runtime/wire (layer wire) imports a2a/client (layer leaves), above it"},
		{p("door", "launcher/view"), "door (layer door/runtime) imports launcher/view (layer launcher/view/conformance), above it"},
		{p("launcher", "capsule"), "launcher (layer launcher/view/conformance) imports capsule (layer capsule), above it"},
		{p("capsule", "cmd/mur"), "capsule (layer capsule) imports cmd/mur (layer cmd), above it"},
		{p("runtime/session", "internal/testmur"), "runtime/session (layer door/runtime) imports the test kit internal/testmur outside a test"},
		{p("elsewhere"), "package elsewhere has no layer: add it to layers"},
		{p("door", "runtime/tasktable", "runtime/wire", "a2a"), ""},
		{p("launcher/view", "runtime/murhome", "runtime/trace"), ""},
		{p("cmd/mur", "capsule", "launcher", "door", "runtime/session"), ""},
		{p("internal/testmur", "cmd/mur"), ""},
	}
	for _, tt := range tests {
		got := layerViolations([]pkg{tt.pkg, {ImportPath: "strings"}})
		switch {
		case tt.want == "" && len(got) != 0:
			t.Errorf("%s: violations %q, want none", tt.pkg.ImportPath, got)
		case tt.want != "" && (len(got) != 1 || got[0] != tt.want):
			t.Errorf("%s: violations %q, want [%q]", tt.pkg.ImportPath, got, tt.want)
		}
	}
}
