package artifact

import (
	"encoding/json"

	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/tool"
)

// Installed is a tool or skill artifact in a store, as staging (a declared
// one) and pull-artifact (a pulled one) find it.
type Installed struct {
	Ref      string             // its full name, e.g. "local/grep"
	Name     string             // its tool name: after the last "/"
	Runtime  string             // "tool" or "skill"
	Tree     string             // its store tree
	Manifest *manifest.Manifest // its murmur.yaml, read
	Raw      []byte             // its murmur.yaml as it is staged (STORE-8)
	Config   json.RawMessage    // a declared tool's config (MURMUR_ARTIFACT_CONFIG); nil for none
}

// FromInstalled builds the tool of an installed artifact (STORE-1,
// LOOP-10): a Skill for a skill, else a Native whose input schema defaults
// to manifest.DefaultInputSchema. A Native's Workdir and Env are the
// caller's to set.
func FromInstalled(in Installed) tool.Artifact {
	m := in.Manifest
	if in.Runtime == "skill" {
		return &Skill{Ref: in.Ref, Name: in.Name, Description: m.Description, Path: store.SkillPath(in.Tree), ManifestRaw: in.Raw}
	}
	schema := m.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(manifest.DefaultInputSchema)
	}
	var req struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &req)
	return &Native{Ref: in.Ref, Name: in.Name, Description: m.Description, Schema: schema, Command: m.CommandPath(),
		Config: in.Config, ManifestRaw: in.Raw, RequiredIn: req.Required}
}
