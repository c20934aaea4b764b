package launcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/store"
)

var _ roster.Advisor = (*StoreResolver)(nil)

// Advise is E-ROS-007's help for capsule@version, installed in neither store:
// the versions of capsule each store does hold, and the mur install command
// that installs capsule@version from a directory holding its murmur.yaml.
// It looks for that directory where the capsule was installed from before
// (meta.json's source_path) and in the roster's project, two levels deep.
// The command works from the current directory: the path is relative to it
// when below it, and it installs into the project store when the current
// directory's project is the roster's (STORE-2), else into the global one.
func (r *StoreResolver) Advise(capsule, version string) (installed []string, install string) {
	var sources []string
	for _, sc := range []store.Scope{store.ScopeProject, store.ScopeGlobal} {
		rows, _ := r.stores.List(sc)
		for _, row := range rows {
			if row.Meta.Name != capsule {
				continue
			}
			installed = append(installed, fmt.Sprintf("%s (%s store)", row.Meta.Version, sc))
			if row.Meta.SourcePath != "" {
				sources = append(sources, row.Meta.SourcePath)
			}
		}
	}
	sources = append(sources, projectDirs(r.stores.ProjectDir)...)
	for _, dir := range sources {
		if declares(dir, capsule, version) {
			return installed, installCommand(dir, r.stores.ProjectDir)
		}
	}
	return installed, ""
}

// projectDirs lists project and the directories one and two levels below
// it, leaving out hidden ones (.murmur holds the stores).
func projectDirs(project string) []string {
	if project == "" {
		return nil
	}
	out := []string{project}
	level := []string{project}
	for range 2 {
		var next []string
		for _, d := range level {
			entries, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
					next = append(next, filepath.Join(d, e.Name()))
				}
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// declares reports whether dir/murmur.yaml names capsule at version.
func declares(dir, capsule, version string) bool {
	data, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		return false
	}
	var id struct {
		Name    string `yaml:"name"`
		Version string `yaml:"version"`
	}
	if yaml.Unmarshal(data, &id) != nil {
		return false
	}
	return id.Name == capsule && id.Version == version
}

// installCommand is the mur install command for dir, run from the current
// directory.
func installCommand(dir, project string) string {
	cwd, err := os.Getwd()
	if err != nil {
		return ""
	}
	shown := dir
	if rel, err := filepath.Rel(cwd, dir); err == nil && !strings.HasPrefix(rel, "..") {
		shown = rel
	}
	shown = diag.ShellWord(shown)
	if here, ok := store.FindProject(cwd); ok && here == project {
		return "mur install " + shown
	}
	return "mur install -g " + shown
}
