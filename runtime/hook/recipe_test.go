package hook

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRecipe resolves the body of make, just and npm run commands from the
// workdir's files, and nothing for another command or an unknown name.
func TestRecipe(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"Makefile":     "VAR := x\n\nbuild: deps\n\tgo build ./...\n\trm -rf dist\n\ntest:\n\tgo test ./...\n",
		"justfile":     "deploy env:\n    git push origin main\n    echo {{env}}\n\nlint:\n  golangci-lint run\n",
		"package.json": `{"scripts":{"clean":"rm -rf node_modules","build":"tsc"}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		argv []string
		body string
		ok   bool
	}{
		{[]string{"make", "build"}, "go build ./...\nrm -rf dist", true},
		{[]string{"make", "-j4", "test"}, "go test ./...", true},
		{[]string{"make", "nope"}, "", false},
		{[]string{"make"}, "", false},
		{[]string{"just", "deploy", "prod"}, "git push origin main\necho {{env}}", true},
		{[]string{"npm", "run", "clean"}, "rm -rf node_modules", true},
		{[]string{"npm", "test"}, "", false},
		{[]string{"ls", "build"}, "", false},
	} {
		body, ok := Recipe(dir, c.argv)
		if body != c.body || ok != c.ok {
			t.Errorf("Recipe(%q) = %q, %v, want %q, %v", c.argv, body, ok, c.body, c.ok)
		}
	}
}
