package manifest

import (
	"path/filepath"

	"github.com/murmur-go/mur/runtime/diag"
)

// OwnFile is the path to read for a file the manifest names at dotted key
// (inference.system_prompt_file, a driver block's script) when the manifest
// may read only files of its own directory: an installed capsule, whose
// store tree is all that its hash vouches for (capsule.md STORE-4). A value
// that is absolute or climbs out with "..", or that resolves — symlinks
// evaluated — outside m.Dir, is E-MAN-003 naming key:
// `../../../../etc/passwd` would otherwise hand an operator's file to the
// capsule's model. The path returned is the resolved one; a file that
// cannot be resolved (missing) is left to its reader, which names it
// (E-RUN-009), at m.Dir joined with value.
func (m *Manifest) OwnFile(key, value string) (string, error) {
	joined := m.abs(value)
	if !inside(m.Dir, joined) || joined == m.Dir {
		return "", diag.ManFileOutside(m.Path, key, value, joined, m.Dir)
	}
	dir, derr := filepath.EvalSymlinks(m.Dir)
	real, err := filepath.EvalSymlinks(joined)
	if derr != nil || err != nil {
		return joined, nil
	}
	if !inside(dir, real) || real == dir {
		return "", diag.ManFileOutside(m.Path, key, value, real, dir)
	}
	return real, nil
}
