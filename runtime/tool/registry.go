package tool

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/diag"
)

// Config builds a Registry.
type Config struct {
	Grants Grants
	// Artifacts are the declared tool and skill artifacts (native tools and
	// skills), in manifest order.
	Artifacts []Artifact
	// Shell answers the shell binary tools; without it none is staged.
	Shell ShellTools
	// Impl holds this build's implementations of tools 2–12 by name. A granted
	// tool without one is not staged (its calls read NotSupported).
	Impl map[string]Tool
}

// ShellTools makes the tool of one allowed shell binary (tool 1, SHELL-*);
// *shell.Shell satisfies it.
type ShellTools interface {
	Tool(bin string) Tool
}

// Artifact is a declared or pulled tool or skill artifact with its staged
// manifest (Kind KindNative or KindSkill).
type Artifact interface {
	Tool
	// FullName is the artifact's full name as declared or pulled, e.g.
	// "local/grep" (MAN-6); "" reads as its tool name.
	FullName() string
	// Manifest is the artifact's murmur.yaml bytes, staged as they are (STORE-8).
	Manifest() []byte
	// Required lists the input_schema's required fields (LOOP-9).
	Required() []string
}

// Registry is one session's evaluation of tools.md §1: staging, the inventory
// sent to the model, session_start.tools_declared and dispatch all read it
// (tools.md §17). After Build only pull-artifact and remove-artifact change
// it (AddPulled, RemovePulled; PULL-3, RMA-1); the loop picks their changes
// up with Refresh before its next inference call. Safe for concurrent use.
type Registry struct {
	mu        sync.Mutex
	inventory []Tool
	runtime   map[string]Tool // staged tools 2–12
	native    map[string]Artifact
	shell     map[string]Tool
	skill     map[string]Artifact
	granted   map[string]bool // tools 2–12 granted but not answered by this build

	declared map[string]string   // tool name → full name, artifacts murmur.yaml declares
	pulled   map[string]string   // tool name → full name, artifacts this session pulled
	removed  map[string]bool     // tool names remove-artifact took out (RMA-3)
	dirty    bool                // a pull or removal since the last Refresh
	sent     map[string]struct{} // the names the last Refresh (or Build) handed out
}

// Build evaluates the grants once (STAGE-1..8). A shell entry named like a
// runtime-provided tool yields (STAGE-7); its W-SEC-019 is the manifest
// loader's, so Build returns it too only for callers that skip the loader.
func Build(cfg Config) (*Registry, []*diag.Diagnostic) {
	r := &Registry{
		runtime: map[string]Tool{}, native: map[string]Artifact{},
		shell: map[string]Tool{}, skill: map[string]Artifact{}, granted: map[string]bool{},
		declared: map[string]string{}, pulled: map[string]string{}, removed: map[string]bool{},
	}
	var warns []*diag.Diagnostic
	taken := map[string]bool{}
	for _, a := range cfg.Artifacts {
		s := a.Spec()
		if taken[s.Name] {
			continue
		}
		taken[s.Name] = true
		r.declared[s.Name] = fullName(a)
		r.inventory = append(r.inventory, a)
		if s.Kind == KindSkill {
			r.skill[s.Name] = a
		} else {
			r.native[s.Name] = a
		}
	}
	for _, bin := range cfg.Grants.ShellAllow {
		switch {
		case IsProvided(bin):
			warns = append(warns, diag.SecShellShadowed(bin))
		case taken[bin]:
			// STAGE-7: the artifact's manifest wins; the shell yields silently.
		case cfg.Shell != nil:
			taken[bin] = true
			t := cfg.Shell.Tool(bin)
			r.shell[bin] = t
			r.inventory = append(r.inventory, t)
		}
	}
	for _, name := range Provided {
		if !granted(cfg.Grants, name) {
			continue
		}
		t, ok := cfg.Impl[name]
		if !ok {
			r.granted[name] = true
			continue
		}
		r.runtime[name] = t
		r.inventory = append(r.inventory, t)
	}
	r.sent = r.namesLocked()
	return r, warns
}

// Inventory is the tools sent to the model, in order: artifacts (manifest
// order), shell binaries (allow order), then tools 2–12 (§1 order).
func (r *Registry) Inventory() []Spec {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Spec, len(r.inventory))
	for i, t := range r.inventory {
		out[i] = t.Spec()
	}
	return out
}

// Declared is session_start.tools_declared: the inventory's names (STAGE-3).
func (r *Registry) Declared() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.inventory))
	for i, t := range r.inventory {
		out[i] = t.Spec().Name
	}
	return out
}

// Lookup resolves a call's tool name by STAGE-8's precedence. When no tool
// answers, refusal is the unfenced error text (TOOL-4, LOOP-9; RMA-3 for a
// tool remove-artifact took out, from the moment it did).
func (r *Registry) Lookup(name string) (t Tool, refusal string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.runtime[name]; ok {
		return t, ""
	}
	if IsProvided(name) {
		if r.granted[name] {
			return nil, NotSupported(name)
		}
		return nil, NotStaged(name)
	}
	if r.removed[name] {
		return nil, Removed(name)
	}
	if a, ok := r.native[name]; ok {
		return a, ""
	}
	if t, ok := r.shell[name]; ok {
		return t, ""
	}
	if a, ok := r.skill[name]; ok {
		return a, ""
	}
	return nil, NotInInventory(name)
}

// MissingRequired returns the required input fields an artifact call lacks
// (LOOP-9); nil for every other tool.
func (r *Registry) MissingRequired(t Tool, input json.RawMessage) []string {
	a, ok := t.(Artifact)
	if !ok {
		return nil
	}
	obj := DecodeObject(input)
	var missing []string
	for _, f := range a.Required() {
		if _, ok := obj[f]; !ok {
			missing = append(missing, f)
		}
	}
	return missing
}

// stagedManifest is a runtime-provided tool's murmur.yaml (STAGE-2).
type stagedManifest struct {
	Name           string `yaml:"name"`
	Version        string `yaml:"version"`
	Runtime        string `yaml:"runtime"`
	Implementation string `yaml:"implementation"`
	Description    string `yaml:"description"`
	InputSchema    string `yaml:"input_schema"`
}

// Stage writes tools/<name>/murmur.yaml under the runtime directory for every
// inventory entry: artifacts' own manifests first, then the runtime-provided
// ones (STAGE-1, STAGE-2, STORE-8). Nothing is written for an absent grant.
func (r *Registry) Stage(runtimeDir string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var arts, rest []Tool
	for _, t := range r.inventory {
		if _, ok := t.(Artifact); ok {
			arts = append(arts, t)
		} else {
			rest = append(rest, t)
		}
	}
	for _, t := range append(arts, rest...) {
		s := t.Spec()
		var body []byte
		if a, ok := t.(Artifact); ok {
			body = a.Manifest()
		} else {
			var err error
			body, err = yaml.Marshal(stagedManifest{
				Name: s.Name, Version: "0.0.0", Runtime: "tool", Implementation: "native",
				Description: s.Description, InputSchema: string(s.InputSchema),
			})
			if err != nil {
				return fmt.Errorf("stage %s: %w", s.Name, err)
			}
		}
		dir := filepath.Join(runtimeDir, "tools", s.Name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("stage %s: %w", s.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), body, 0o600); err != nil {
			return fmt.Errorf("stage %s: %w", s.Name, err)
		}
	}
	return nil
}
