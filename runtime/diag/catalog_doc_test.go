package diag

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
)

// docPath is the user's page of every diagnostic, generated from catalog.
const docPath = "../../docs/diagnostics.md"

// TestDiagnosticsDoc: docs/diagnostics.md is exactly what catalog renders
// (go test ./runtime/diag -run TestDiagnosticsDoc -update rewrites it).
func TestDiagnosticsDoc(t *testing.T) {
	got := diagnosticsDoc()
	if golden.Update() {
		if err := os.WriteFile(docPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("docs/diagnostics.md is not what the catalog renders (rewrite with -update, review the diff):\n%s", golden.Diff(got, string(want)))
	}
}

// TestCatalogComplete: every exported constructor of a *Diagnostic in this
// package is in catalog, once, and each entry's code is one of its Code
// constants.
func TestCatalogComplete(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	ctors := map[string]bool{}
	codes := map[Code]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil || !d.Name.IsExported() || d.Type.Results == nil || d.Name.Name == "As" {
					continue
				}
				if star, ok := d.Type.Results.List[0].Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok && id.Name == "Diagnostic" {
						ctors[d.Name.Name] = true
					}
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					vs, ok := s.(*ast.ValueSpec)
					if !ok || vs.Type == nil || len(vs.Values) == 0 {
						continue
					}
					if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Code" {
						for _, v := range vs.Values {
							if lit, ok := v.(*ast.BasicLit); ok {
								codes[Code(strings.Trim(lit.Value, `"`))] = true
							}
						}
					}
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, e := range catalog {
		if seen[e.ctor] {
			t.Errorf("%s is in catalog twice", e.ctor)
		}
		seen[e.ctor] = true
		if !ctors[e.ctor] {
			t.Errorf("catalog names %s, which is no constructor here", e.ctor)
		}
		if e.ctor != "InMember" && !codes[e.d.Code] {
			t.Errorf("%s gives %s, which is no Code constant", e.ctor, e.d.Code)
		}
	}
	for c := range ctors {
		if !seen[c] {
			t.Errorf("the constructor %s is missing from catalog (and so from docs/diagnostics.md)", c)
		}
	}
}

// families names each code prefix's section.
var families = []struct{ prefix, title string }{
	{"E-IO", "Files"},
	{"E-MAN", "The capsule's murmur.yaml"},
	{"E-CAP", "Capabilities"},
	{"E-BLD", "Building and installing artifacts"},
	{"E-REG", "The stores and murmur.lock"},
	{"E-NEW", "mur new"},
	{"E-RUN", "Running a capsule or formation"},
	{"E-ROS", "roster.yaml"},
	{"E-TRC", "mur trace"},
	{"E-", "Other errors"},
	{"W-", "Warnings"},
}

func familyOf(c Code) int {
	for i, f := range families {
		if strings.HasPrefix(string(c), f.prefix+"-") || f.prefix == "E-" && strings.HasPrefix(string(c), "E-") || f.prefix == "W-" && c.Warning() {
			return i
		}
	}
	return len(families) - 1
}

// diagnosticsDoc renders catalog: per family, per code in order, each
// message as stderr prints it, with placeholders in angle brackets.
func diagnosticsDoc() string {
	type entry struct {
		ctor string
		d    *Diagnostic
	}
	byCode := map[Code][]entry{}
	for _, e := range catalog {
		if e.ctor == "InMember" {
			continue
		}
		byCode[e.d.Code] = append(byCode[e.d.Code], entry{e.ctor, e.d})
	}
	codes := make([]Code, 0, len(byCode))
	for c := range byCode {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool {
		fi, fj := familyOf(codes[i]), familyOf(codes[j])
		if fi != fj {
			return fi < fj
		}
		return codes[i] < codes[j]
	})
	var b strings.Builder
	b.WriteString(`# Diagnostics

Every error and warning mur prints has a stable code. An error goes to stderr as

    error[<CODE>]: <message>
      hint: <what to do>

and ends the command with exit status 1 (a usage error — an unknown flag, a
missing argument — prints ` + "`error: …`" + ` and exits 2 instead). A warning is one
line, ` + "`warning[<CODE>]: <message>`" + `; the command goes on. ` + "`mur doctor`" + ` prints
every warning it finds with a ` + "`Fix:`" + ` line (the warning's hint), a run that
went ahead despite warnings says so last (` + "`W-RUN-010`" + `), and
` + "`mur run --strict`" + `, ` + "`mur doctor --strict`" + ` and ` + "`strict: true`" + ` in roster.yaml turn
every warning into a refusal. Inside a formation a member's warning is
prefixed ` + "`member '<member>': `" + `. With ` + "`--json`" + ` a diagnostic is an object with
` + "`code`" + `, ` + "`message`" + ` and ` + "`hint`" + ` (docs/json.md).

Words in angle brackets stand for what mur fills in: a path, a name, a
count (shown as 2). This page is generated from the one list of
diagnostics in the source, so it holds every code mur can print.

`)
	fam := -1
	for _, c := range codes {
		if f := familyOf(c); f != fam {
			fam = f
			b.WriteString("## " + families[f].title + "\n\n")
		}
		b.WriteString("### " + string(c) + "\n\n")
		for _, e := range byCode[c] {
			b.WriteString("```text\n" + e.d.Render())
			if c.Warning() && e.d.Hint != "" {
				b.WriteString("Fix: " + e.d.Hint + "\n")
			}
			b.WriteString("```\n\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
