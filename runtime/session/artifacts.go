package session

import (
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/toolset"
)

// resolveArtifacts is MAN-4 step 8 (store.CheckArtifacts: E-RUN-003,
// E-RUN-008, E-REG-002, E-REG-005) and reads each bound tool and skill
// artifact's manifest for staging (STORE-8), and binds each hook entry to
// its hook artifact (its contract checked again here). driver entries are
// LATER and not staged (MAN-7).
func (l *Launch) resolveArtifacts(m *manifest.Manifest) error {
	if len(m.Artifacts) == 0 {
		return nil
	}
	home, err := murhome.Home(l.Opts.Getenv)
	if err != nil {
		return err
	}
	stores := store.Stores{ProjectDir: l.Project, Home: home}
	bound, err := stores.CheckArtifacts(m, false)
	if err != nil {
		return err
	}
	// STORE-5: mur run creates the lock when absent, but only once the
	// launch is accepted (Start), so a refused one writes nothing; the store
	// form never touches it.
	if l.Opts.StoreName == "" {
		l.createLock = func() error { return stores.CreateLock(bound) }
	}
	for _, b := range bound {
		a := b.Artifact
		if a.Runtime != "tool" && a.Runtime != "skill" && a.Runtime != "hook" {
			continue
		}
		am, err := store.ReadArtifact(b.TreeDir)
		if err != nil {
			return err
		}
		if a.Runtime == "hook" {
			if err := l.bindHook(a, b.TreeDir, am); err != nil {
				return err
			}
			continue
		}
		raw, err := os.ReadFile(filepath.Join(b.TreeDir, manifest.FileName))
		if err != nil {
			return diag.IOError(filepath.Join(b.TreeDir, manifest.FileName), osText(err))
		}
		l.Artifacts = append(l.Artifacts, toolset.FromInstalled(toolset.Installed{Ref: a.Ref, Name: a.Name,
			Runtime: a.Runtime, Tree: b.TreeDir, Manifest: am, Raw: raw, Config: a.ConfigJSON}))
	}
	return nil
}
