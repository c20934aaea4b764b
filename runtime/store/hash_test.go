package store

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
)

// writeTree creates files (slash path → content; a trailing '*' in the path
// marks an executable) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// fixture is the tree whose hash testdata/fixture-sha256.golden records.
var fixture = map[string]string{
	"murmur.yaml":      "name: tool-edit\nversion: 1.0.0\nruntime: tool\ncommand: bin/edit\n",
	"bin/edit*":        "#!/bin/sh\necho edited\n",
	"README.md":        "# tool-edit\n",
	"lib/a.txt":        "a\n",
	"lib/b/c.txt":      "",
	"lib-extra/z.json": "{}\n",
}

// TestHashGolden is STORE-4: the canonical tar's sha256 of a fixed tree.
func TestHashGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, fixture)
	sum, err := Hash(dir)
	if err != nil {
		t.Fatalf("Hash() error = %v", err)
	}
	golden.Check(t, "fixture-sha256", sum+"\n")
}

// TestHashIgnores is STORE-4: mtimes, permission bits other than exec, and
// .git/, .murmur/, .env and the root murmur.lock do not change the hash;
// content and exec bits do.
func TestHashIgnores(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	writeTree(t, base, fixture)
	want, err := Hash(base)
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	writeTree(t, other, fixture)
	writeTree(t, other, map[string]string{".git/HEAD": "ref", ".env": "K=v", "lib/.env": "K=v", ".murmur/x/y": "z",
		"murmur.lock": "lock_version: 2\n"})
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(other, "README.md"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(other, "README.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(other, "bin", "edit"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got, err := Hash(other); err != nil || got != want {
		t.Errorf("Hash(same tree, other mtimes/modes/skipped files) = %s, %v; want %s", got, err, want)
	}
	// Only the root's murmur.lock is the project's own; one deeper is content.
	writeTree(t, other, map[string]string{"lib/murmur.lock": "x"})
	if got, _ := Hash(other); got == want {
		t.Error("Hash ignored lib/murmur.lock; only the root murmur.lock is left out")
	}
	if err := os.Chmod(filepath.Join(other, "README.md"), 0o744); err != nil {
		t.Fatal(err)
	}
	if got, _ := Hash(other); got == want {
		t.Error("an exec bit did not change the hash")
	}
	writeTree(t, base, map[string]string{"README.md": "# changed\n"})
	if got, _ := Hash(base); got == want {
		t.Error("a content change did not change the hash")
	}
}

// TestCanonicalTar reads the canonical tar back: order, modes, owners, mtime, format.
func TestCanonicalTar(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, fixture)
	entries, err := walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeTar(&buf, dir, entries); err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(&buf)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		wantMode := int64(0o644)
		if h.Typeflag == tar.TypeDir || h.Name == "bin/edit" {
			wantMode = 0o755
		}
		if h.Mode != wantMode || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.ModTime.Unix() != 0 || h.Format != tar.FormatUSTAR {
			t.Errorf("header %s = mode %o uid %d gid %d %q/%q mtime %v format %v", h.Name, h.Mode, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime, h.Format)
		}
	}
	// byte order of the paths themselves: "lib" < "lib-extra" < "lib/a.txt"
	want := "README.md bin/ bin/edit lib/ lib-extra/ lib-extra/z.json lib/a.txt lib/b/ lib/b/c.txt murmur.yaml"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("entries = %s, want %s", got, want)
	}
}

// TestHashSymlink is STORE-4's E-BLD-002.
func TestHashSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, fixture)
	link := filepath.Join(dir, "lib", "link")
	if err := os.Symlink("a.txt", link); err != nil {
		t.Fatal(err)
	}
	_, err := Hash(dir)
	want := "error[E-BLD-002]: " + link + " is a symlink; an artifact holds regular files and directories only\n  hint: replace the link with the file it points to\n"
	if d, ok := diag.As(err); !ok || d.Render() != want {
		t.Errorf("Hash() error = %v, want %q", err, want)
	}
}

// BenchmarkHash measures hashing the fixture tree.
func BenchmarkHash(b *testing.B) {
	dir := b.TempDir()
	for p, c := range fixture {
		p = strings.TrimSuffix(p, "*")
		full := filepath.Join(dir, filepath.FromSlash(p))
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		_ = os.WriteFile(full, []byte(c), 0o644)
	}
	for b.Loop() {
		if _, err := Hash(dir); err != nil {
			b.Fatal(err)
		}
	}
}
