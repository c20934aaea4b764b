package session

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
)

// resolveHarness is MAN-4 step 9's last check under transport: process
// (PROC-1, PROC-4): inference.command, or the dialect's default, must name
// an executable regular file — a value holding '/' as a path relative to
// the manifest's directory, a bare name on the PATH the harness will get
// (mur's own, after .env, PROC-8) — else E-RUN-006.
func (l *Launch) resolveHarness(m *manifest.Manifest) error {
	in := m.Inference
	name := in.HarnessCommand()
	by := ""
	if in.Command == "" {
		by = in.Harness // named by the dialect's default
	}
	notFound := diag.RunHarnessNotFound(name, by)
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(m.Dir, p)
		}
		if !executableFile(p) {
			return notFound
		}
		l.HarnessBinary = filepath.Clean(p)
		return nil
	}
	for _, dir := range filepath.SplitList(l.Env.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if executableFile(p) {
			abs, err := filepath.Abs(p)
			if err != nil {
				return notFound
			}
			l.HarnessBinary = abs
			return nil
		}
	}
	return notFound
}

// executableFile reports whether p is a regular file (after symlinks) with
// an execute bit.
func executableFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
