package launcher

import (
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/store"
	"gopkg.in/yaml.v3"
)

// MemberWarnings loads every admitted member's installed murmur.yaml and
// returns, in roster order, the mistakes that would otherwise end a launch
// with a broken answer and exit 0: a member that others call but
// that ends after its first task (W-ROS-002), a caller whose egress reaches
// no door (W-RUN-008), a driver credential variable unset (W-ROS-003, and
// W-RUN-003 for an alternate) and every W-SEC-019 of its manifest (a
// misspelt key), each naming the member. getenv is the environment the
// members inherit, .env (beside roster.yaml, else in cwd) under it unless
// noEnvFile. `mur doctor` shows them in its Roster block; `mur run --roster`
// prints them before it starts anything.
func MemberWarnings(f *roster.Formation, getenv func(string) string, cwd string, noEnvFile bool) []*diag.Diagnostic {
	if !noEnvFile {
		if env, err := manifest.LoadDotEnv(filepath.Dir(f.Roster.Path), cwd, getenv); err == nil {
			getenv = env.Getenv
		}
	}
	callers := map[string][]string{}
	for _, e := range f.Edges {
		callers[e.To] = append(callers[e.To], e.From)
	}
	var out []*diag.Diagnostic
	for _, m := range f.Members {
		path := filepath.Join(m.TreeDir, manifest.FileName)
		data, err := os.ReadFile(path)
		if err != nil {
			continue // admission read it; a tree gone since is the launch's to report
		}
		// Parsed with every variable present, so a missing credential is
		// reported below as a warning rather than ending the parse.
		man, warns, err := manifest.Parse(path, data, func(k string) string {
			if v := getenv(k); v != "" {
				return v
			}
			return "unset"
		})
		if err != nil {
			continue // admission parsed it; anything else is the member's launch to report
		}
		for _, w := range warns {
			out = append(out, diag.InMember(m.Name, w))
		}
		var choices []manifest.DriverBlock
		if man.Inference != nil {
			choices = man.Inference.Choices()
		}
		for i, c := range choices {
			if c.APIKeyEnv == "" || getenv(c.APIKeyEnv) != "" {
				continue
			}
			if i == 0 {
				out = append(out, diag.RosCredentialUnset(m.Name, "inference.driver.api_key", c.APIKeyEnv))
			} else {
				out = append(out, diag.InMember(m.Name, diag.RunChoiceUnavailable(c.Name, c.Kind, c.Model, c.APIKeyEnv)))
			}
		}
		if cs := callers[m.Name]; len(cs) > 0 && !m.Entry && man.Lifecycle.AfterTask != "sleep" {
			out = append(out, diag.RosPeerExits(m.Name, cs))
		}
		if len(m.Callees) > 0 && !man.Capabilities.Network.Allow.ReachesDoors() {
			out = append(out, diag.RunNoEgress(m.Name, m.Callees))
		}
		if len(m.Callees) == 0 && scriptsCallMember(man, choices) {
			out = append(out, diag.RosCallsNoOne(m.Name))
		}
		if now, changed := store.SourceChanged(m.SourcePath, m.SHA256); changed {
			alt := "mur run --roster " + diag.ShellWord(f.Roster.Dir) + " --reinstall"
			out = append(out, diag.InMember(m.Name, diag.RegSourceChanged(m.Capsule, m.Version, m.Scope, m.SourcePath, m.SHA256, now, reinstallCommand(m.Scope, m.SourcePath), alt)))
		}
	}
	return out
}

// reinstallCommand is the mur install that puts the source in dir into the
// scope store again, replacing the bytes held there.
func reinstallCommand(scope, dir string) string {
	if scope == string(store.ScopeProject) {
		return "mur install --force " + diag.ShellWord(dir)
	}
	return "mur install -g --force " + diag.ShellWord(dir)
}

// scriptsCallMember reports whether a scripted choice's script names
// call-member in a tool call. Only the names are read; the member's
// launch validates the script.
func scriptsCallMember(man *manifest.Manifest, choices []manifest.DriverBlock) bool {
	type calls struct {
		Turns []struct {
			ToolCalls []struct {
				Name string `yaml:"name"`
			} `yaml:"tool_calls"`
		} `yaml:"turns"`
	}
	for _, c := range choices {
		if c.Kind != manifest.KindScripted {
			continue
		}
		data, err := os.ReadFile(man.ScriptPath(c))
		if err != nil {
			continue
		}
		var s struct {
			Rules    []calls `yaml:"rules"`
			Fallback *calls  `yaml:"fallback"`
		}
		if yaml.Unmarshal(data, &s) != nil {
			continue
		}
		if s.Fallback != nil {
			s.Rules = append(s.Rules, *s.Fallback)
		}
		for _, r := range s.Rules {
			for _, t := range r.Turns {
				for _, tc := range t.ToolCalls {
					if tc.Name == manifest.ToolCallMember {
						return true
					}
				}
			}
		}
	}
	return false
}
