package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/internal/diag"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/tools"
)

// resolveArtifacts finds every declared tool and skill artifact in the
// stores (STORE-3) and reads its manifest for staging (STORE-8): missing ones
// are E-RUN-008, a changed tree E-REG-002. hook and driver entries are LATER
// and not staged (MAN-7).
func (l *Launch) resolveArtifacts(m *manifest.Manifest) error {
	if len(m.Artifacts) == 0 {
		return nil
	}
	home, err := store.Home(l.Opts.Getenv)
	if err != nil {
		return err
	}
	stores := store.Stores{ProjectDir: l.Project, Home: home}
	if l.Opts.StoreRoot != "" {
		stores.ProjectDir = l.Opts.StoreRoot
	}
	var missing []string
	for _, a := range m.Artifacts {
		if a.Runtime != "tool" && a.Runtime != "skill" {
			continue
		}
		r, err := stores.Resolve(a.Name, a.Version)
		if errors.Is(err, store.ErrNotInstalled) {
			missing = append(missing, a.Ref+"@"+a.Version)
			continue
		}
		if err != nil {
			return err
		}
		am, err := store.ReadArtifact(r.TreeDir)
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(filepath.Join(r.TreeDir, manifest.FileName))
		if err != nil {
			return diag.IOError(filepath.Join(r.TreeDir, manifest.FileName), osText(err))
		}
		if a.Runtime == "skill" {
			l.Artifacts = append(l.Artifacts, &tools.Skill{FullName: a.Ref, Name: a.Name, Description: am.Description,
				Path: store.SkillPath(r.TreeDir), ManifestRaw: raw})
			continue
		}
		schema := am.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(manifest.DefaultInputSchema)
		}
		var req struct {
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(schema, &req)
		l.Artifacts = append(l.Artifacts, &tools.Native{FullName: a.Ref, Name: a.Name, Description: am.Description,
			Schema: schema, Command: am.CommandPath(), Config: a.ConfigJSON, ManifestRaw: raw, RequiredIn: req.Required})
	}
	if len(missing) > 0 {
		return diag.RunMissingArtifacts(missing)
	}
	return nil
}
