package harness

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/manifest"
)

// Grants are the paths a contained harness CLI reaches beyond its workdir,
// <H> and the read-only system paths: its own config and state under its
// HOME (read-write), and its install tree (read and execute).
type Grants struct {
	ReadWrite []string
	ReadOnly  []string
	// Env is what the contained CLI's environment gets beside PROC-8's: a
	// temp directory of its own, <H>/tmp, as claude's CLAUDE_CODE_TMPDIR
	// (it refuses to run without one it can use) and codex's TMPDIR (its
	// thread store fails a resume without one); /tmp is not theirs.
	Env []string
}

// Grants returns what the dialect's CLI needs, for env (its whole
// environment, PROC-8), binary (PROC-4's absolute path) and hdir (<H>):
//   - claude: $CLAUDE_CONFIG_DIR, else ~/.claude and ~/.claude.json (its
//     login, settings and sessions), and <H>/tmp as its temp directory;
//   - codex: $CODEX_HOME, else ~/.codex (its config, login and sessions),
//     and <H>/tmp as its TMPDIR;
//   - both: the binary's directory, and its install tree: the outermost
//     node_modules directory on the binary's resolved path (a package's
//     bin link points into that tree, and node resolves its modules
//     there), else the resolved binary's directory.
//
// Nothing else under HOME: $MURMUR_HOME may be there.
func (d Dialect) Grants(env []string, binary, hdir string) Grants {
	get := func(name string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				return v
			}
		}
		return ""
	}
	home := get("HOME")
	var g Grants
	abs := func(p string) bool { return p != "" && filepath.IsAbs(p) }
	if d.Key == manifest.HarnessCodex {
		if c := get("CODEX_HOME"); abs(c) {
			g.ReadWrite = append(g.ReadWrite, c)
		} else if abs(home) {
			g.ReadWrite = append(g.ReadWrite, filepath.Join(home, ".codex"))
		}
		tmp := filepath.Join(hdir, "tmp")
		g.ReadWrite = append(g.ReadWrite, tmp)
		g.Env = append(g.Env, "TMPDIR="+tmp)
	} else {
		if c := get("CLAUDE_CONFIG_DIR"); abs(c) {
			g.ReadWrite = append(g.ReadWrite, c)
		} else if abs(home) {
			g.ReadWrite = append(g.ReadWrite, filepath.Join(home, ".claude"), filepath.Join(home, ".claude.json"))
		}
		tmp := filepath.Join(hdir, "tmp")
		g.ReadWrite = append(g.ReadWrite, tmp)
		g.Env = append(g.Env, "CLAUDE_CODE_TMPDIR="+tmp)
	}
	g.ReadOnly = append(g.ReadOnly, filepath.Dir(binary))
	if real, err := filepath.EvalSymlinks(binary); err == nil {
		g.ReadOnly = append(g.ReadOnly, InstallTree(real))
	}
	return g
}

// InstallTree is the tree a resolved executable path belongs to: its
// outermost node_modules directory, else its own directory.
func InstallTree(path string) string {
	const nm = string(filepath.Separator) + "node_modules" + string(filepath.Separator)
	if i := strings.Index(path, nm); i >= 0 {
		return path[:i+len(nm)-1]
	}
	return filepath.Dir(path)
}

// EnsureDirs makes each of g's read-write paths that is meant to be a
// directory and does not exist yet (0700), so that Landlock can grant it;
// a file path (claude's ~/.claude.json) is left alone.
func (g Grants) EnsureDirs() {
	for _, p := range g.ReadWrite {
		if strings.HasSuffix(p, ".json") {
			continue
		}
		_ = os.MkdirAll(p, 0o700)
	}
}
