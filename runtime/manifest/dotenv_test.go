package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestParseDotEnv is SES-10's .env format.
func TestParseDotEnv(t *testing.T) {
	t.Parallel()
	got, err := ParseDotEnv([]byte("# comment\n\nA=1\nexport B = two words \nC=\"x\\ny\" \nD='lit $X'\nE=val # note\nF=\n"))
	want := map[string]string{"A": "1", "B": "two words", "C": "x\ny", "D": "lit $X", "E": "val", "F": ""}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseDotEnv() = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"NOEQUALS\n", "1A=x\n", "A=\"open\n"} {
		if _, err := ParseDotEnv([]byte(bad)); err == nil {
			t.Errorf("ParseDotEnv(%q) succeeded, want an error", bad)
		}
	}
}

// TestLoadDotEnv is SES-10: <project>/.env else cwd's, never overriding.
func TestLoadDotEnv(t *testing.T) {
	t.Parallel()
	project, cwd := t.TempDir(), t.TempDir()
	write := func(dir, text string) {
		if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cwd, "FROM=cwd\n")
	base := env("SET", "process", "EMPTY", "")
	e, err := LoadDotEnv(project, cwd, base)
	if err != nil || e.Path != filepath.Join(cwd, ".env") || e.Getenv("FROM") != "cwd" {
		t.Fatalf("LoadDotEnv(no project .env) = %+v, %v; want cwd's .env", e, err)
	}
	write(project, "FROM=project\nSET=file\nEMPTY=filled\n")
	e, err = LoadDotEnv(project, cwd, base)
	if err != nil || e.Path != filepath.Join(project, ".env") {
		t.Fatalf("LoadDotEnv() = %+v, %v; want the project's .env", e, err)
	}
	for k, want := range map[string]string{"FROM": "project", "SET": "process", "EMPTY": "filled", "NONE": ""} {
		if got := e.Getenv(k); got != want {
			t.Errorf("Getenv(%s) = %q, want %q", k, got, want)
		}
	}
	if _, ok := e.Vars["SET"]; ok {
		t.Error("Vars holds SET, which the process environment already had")
	}
	none, err := LoadDotEnv(t.TempDir(), "", base)
	if err != nil || none.Path != "" || none.Getenv("SET") != "process" {
		t.Errorf("LoadDotEnv(no .env) = %+v, %v", none, err)
	}
	write(project, "broken line\n")
	if _, err := LoadDotEnv(project, cwd, base); err == nil {
		t.Error("LoadDotEnv(malformed) succeeded, want E-IO-001")
	}
}
