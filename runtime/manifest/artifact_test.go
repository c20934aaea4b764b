package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/runtime/diag"
)

func artifactDir(t *testing.T, yaml string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLoadArtifactErrors is capsule.md CLI-6's codes and STORE-1's kinds.
func TestLoadArtifactErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, yaml string
		files      []string
		want       func(dir string) string
	}{
		{"CLI6_bld001", "name: Tool_X\nversion: 1.0.0\nruntime: tool\ncommand: run\n", []string{"run"}, func(string) string {
			return "error[E-BLD-001]: invalid artifact name 'Tool_X': it holds 'T'; only a-z, 0-9 and - are allowed\n  hint: use [a-z0-9-], 1–100 characters, no leading or trailing -\n"
		}},
		{"CLI6_reg004", "name: t\nversion: latest\nruntime: tool\ncommand: run\n", []string{"run"}, func(string) string {
			return "error[E-REG-004]: version 'latest' is reserved: latest, stable and edge are not exact versions\n  hint: give an exact version\n"
		}},
		{"STORE1_command_required", "name: t\nversion: 1.0.0\nruntime: tool\n", nil, func(d string) string {
			return "error[E-MAN-001]: " + d + "/murmur.yaml: missing required key 'command'\n  hint: add command to " + d + "/murmur.yaml\n"
		}},
		{"STORE1_wasm", "name: t\nversion: 1.0.0\nruntime: tool\nimplementation: wasm\n", nil, func(d string) string {
			return "error[E-MAN-003]: " + d + "/murmur.yaml:4:17: implementation: 'wasm' artifacts are not supported by this build; a tool is a native executable\n  hint: correct implementation\n"
		}},
		{"STORE1_driver_later", "name: t\nversion: 1.0.0\nruntime: driver\n", nil, func(d string) string {
			return "error[E-MAN-003]: " + d + "/murmur.yaml:3:10: runtime: 'driver' artifacts are not supported by this build; install a capsule, tool, skill or hook\n  hint: correct runtime\n"
		}},
		{"hook_implementation_required", "name: h\nversion: 1.0.0\nruntime: hook\ncommand: run\n", []string{"run"}, func(d string) string {
			return "error[E-MAN-001]: " + d + "/murmur.yaml: missing required key 'implementation'\n  hint: add implementation to " + d + "/murmur.yaml\n"
		}},
		{"hook_wasm", "name: h\nversion: 1.0.0\nruntime: hook\nimplementation: wasm\n", nil, func(d string) string {
			return "error[E-MAN-003]: " + d + "/murmur.yaml:4:17: implementation: 'wasm' artifacts are not supported by this build; a tool is a native executable\n  hint: correct implementation\n"
		}},
		{"hook_command_required", "name: h\nversion: 1.0.0\nruntime: hook\nimplementation: native\n", nil, func(d string) string {
			return "error[E-MAN-001]: " + d + "/murmur.yaml: missing required key 'command'\n  hint: add command to " + d + "/murmur.yaml\n"
		}},
		{"hook_binding_unknown", "name: h\nversion: 1.0.0\nruntime: hook\nimplementation: native\ncommand: run\nbinding: on-call\n", []string{"run"}, func(d string) string {
			return "error[E-MAN-003]: " + d + "/murmur.yaml:6:10: binding: 'on-call' is not one of on-stage, on-session-start, on-task-start, on-inference, on-tool-call, on-shell, on-compaction, on-task-end, on-session-end\n  hint: correct binding\n"
		}},
		{"hook_fields_on_tool", "name: t\nversion: 1.0.0\nruntime: tool\ncommand: run\nbinding: on-shell\n", []string{"run"}, func(d string) string {
			return "error[E-MAN-003]: " + d + "/murmur.yaml: binding: is read only on a runtime: hook artifact\n  hint: correct binding\n"
		}},
		{"STORE1_command_escapes", "name: t\nversion: 1.0.0\nruntime: tool\ncommand: ../bin/x\n", nil, func(d string) string {
			return "error[E-MAN-003]: " + d + "/murmur.yaml:4:10: command: '../bin/x' must be a path inside the artifact directory\n  hint: correct command\n"
		}},
		{"STORE1_command_missing_file", "name: t\nversion: 1.0.0\nruntime: tool\ncommand: bin/run\n", nil, func(d string) string {
			return "error[E-IO-001]: " + d + "/bin/run: no such file or directory\n  hint: check the path\n"
		}},
		{"STORE1_skill_md", "name: s\nversion: 1.0.0\nruntime: skill\n", nil, func(d string) string {
			return "error[E-IO-001]: " + d + "/skill.md: no such file or directory\n  hint: check the path\n"
		}},
		{"STORE1_schema_not_object", "name: t\nversion: 1.0.0\nruntime: tool\ncommand: run\ninput_schema: '[1]'\n", []string{"run"}, func(d string) string {
			return "error[E-MAN-003]: " + d + "/murmur.yaml:5:15: input_schema: must be a JSON Schema object, as YAML or a JSON string\n  hint: correct input_schema\n"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := artifactDir(t, c.yaml, c.files...)
			_, _, err := LoadArtifact(dir)
			want := c.want(dir)
			if d, ok := diag.As(err); !ok || d.Render() != want {
				t.Errorf("LoadArtifact() error = %v, want %q", err, want)
			}
		})
	}
}

// TestLoadArtifactTool reads a native tool's manifest for staging (STORE-1).
func TestLoadArtifactTool(t *testing.T) {
	t.Parallel()
	dir := artifactDir(t, "name: tool-edit\nversion: 1.0.0\nruntime: tool\nimplementation: native\ndescription: edits files\ncommand: bin/edit\ninput_schema: '{\"type\":\"object\",\"required\":[\"path\"]}'\n")
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "edit"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m, _, err := LoadArtifact(dir)
	if err != nil {
		t.Fatalf("LoadArtifact() error = %v", err)
	}
	if m.Kind() != "tool" || m.Description != "edits files" || m.CommandPath() != filepath.Join(dir, "bin", "edit") ||
		string(m.InputSchema) != `{"required":["path"],"type":"object"}` {
		t.Errorf("tool = kind %q, %q, %q, %s", m.Kind(), m.Description, m.CommandPath(), m.InputSchema)
	}
	yamlSchema := artifactDir(t, "name: t\nversion: 1.0.0\nruntime: tool\ncommand: run\ninput_schema:\n  type: object\n  properties: {q: {type: string}}\n", "run")
	m, _, err = LoadArtifact(yamlSchema)
	if err != nil || string(m.InputSchema) != `{"properties":{"q":{"type":"string"}},"type":"object"}` {
		t.Errorf("YAML input_schema = %s, %v", m.InputSchema, err)
	}
	noSchema := artifactDir(t, "name: t\nversion: 1.0.0\nruntime: tool\ncommand: run\n", "run")
	m, _, err = LoadArtifact(noSchema)
	if err != nil || string(m.InputSchema) != DefaultInputSchema {
		t.Errorf("default input_schema = %s, %v", m.InputSchema, err)
	}
	capsule := artifactDir(t, "name: c\nversion: 1.0.0\n")
	m, _, err = LoadArtifact(capsule)
	if err != nil || m.Kind() != "capsule" || m.Inference != nil {
		t.Errorf("capsule without inference = %+v, %v; want it installable", m, err)
	}
}
