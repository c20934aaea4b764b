package arch

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// starts are the methods of *exec.Cmd that start a process.
var starts = map[string]bool{"Start": true, "Run": true, "Output": true, "CombinedOutput": true}

// directStart marks the one kind of call allowed to start a command itself:
// testmur's own proof of what Start guards against.
const directStart = "testmur: direct start"

// TestCommandsDieWithTheTest holds every _test.go file of the module to
// starting its commands through internal/testmur (Start, StartFake, Exec,
// Combined), so that none outlives a test binary that dies: a call of
// *exec.Cmd's Start, Run, Output or CombinedOutput in a test is an error.
// The files are type-checked against os/exec's own source, every other
// import standing in as an empty package, so a command is recognised by
// its type wherever it is held.
func TestCommandsDieWithTheTest(t *testing.T) {
	execPkg := parseExec(t)
	fset := token.NewFileSet()
	var found []string
	checked := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "../.." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			n, bad := directStarts(t, fset, execPkg, path)
			checked += n
			found = append(found, bad...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no _test.go file was checked")
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s starts a command itself: use testmur.Start (or StartFake, Exec, Combined) so it dies with the test binary", f)
	}
}

// directStarts type-checks the Go files of dir and returns how many
// _test.go files it checked and each direct start found in them.
func directStarts(t *testing.T, fset *token.FileSet, execPkg *types.Package, dir string) (int, []string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	byPkg := map[string][]*ast.File{} // package name → its files, tests beside code
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		byPkg[f.Name.Name] = append(byPkg[f.Name.Name], f)
	}
	n := 0
	var bad []string
	for _, files := range byPkg {
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: stubImporter{execPkg}, Error: func(error) {}} // only *exec.Cmd's type matters
		_, _ = conf.Check(dir, fset, files, info)
		for _, f := range files {
			name := fset.File(f.Pos()).Name()
			if !strings.HasSuffix(name, "_test.go") {
				continue
			}
			n++
			allowed := map[int]bool{}
			for _, cg := range f.Comments {
				if strings.Contains(cg.Text(), directStart) {
					allowed[fset.Position(cg.Pos()).Line] = true
				}
			}
			ast.Inspect(f, func(node ast.Node) bool {
				call, ok := node.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !starts[sel.Sel.Name] || !isCmd(info.Selections[sel]) {
					return true
				}
				if pos := fset.Position(call.Pos()); !allowed[pos.Line] {
					bad = append(bad, pos.String()+": "+sel.Sel.Name)
				}
				return true
			})
		}
	}
	return n, bad
}

// isCmd reports whether s selects a method of exec.Cmd.
func isCmd(s *types.Selection) bool {
	if s == nil || s.Kind() != types.MethodVal {
		return false
	}
	recv := s.Recv()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	named, ok := recv.(*types.Named)
	return ok && named.Obj().Name() == "Cmd" && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "os/exec"
}

// parseExec type-checks os/exec from the toolchain's source, its own
// imports stubbed: enough to declare Cmd and its methods.
func parseExec(t *testing.T) *types.Package {
	t.Helper()
	bp, err := build.Import("os/exec", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: stubImporter{}, Error: func(error) {}}
	pkg, _ := conf.Check("os/exec", fset, files, nil)
	if obj := pkg.Scope().Lookup("Cmd"); obj == nil {
		t.Fatal("os/exec's source declares no Cmd")
	}
	return pkg
}

// stubImporter gives os/exec (when it has it) and an empty, complete
// package for every other path.
type stubImporter struct{ exec *types.Package }

func (s stubImporter) Import(path string) (*types.Package, error) {
	if path == "os/exec" && s.exec != nil {
		return s.exec, nil
	}
	pkg := types.NewPackage(path, filepath.Base(path))
	pkg.MarkComplete()
	return pkg, nil
}
