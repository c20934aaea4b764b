package manifest

import (
	"fmt"
	"strings"
)

// Preset is a driver block `mur new --driver <name>` scaffolds: one
// that runs against its provider as written, the endpoint being the base
// URL the provider's SDK takes (DRV-5, DRV-6).
type Preset struct {
	Name     string // the --driver value: scripted, openai, anthropic, ollama
	Kind     string // the driver kind it writes
	Model    string
	Endpoint string
	KeyEnv   string // the api_key variable; "" for scripted and keyless
	Keyless  bool
	// Label names the driver in mur new's report: "openai driver".
	Label string
	// Setup is a command to run before the capsule can (ollama pull …); "".
	Setup string
}

// Presets are the --driver values, in the order mur new --help lists them.
var Presets = []Preset{
	{Name: "scripted", Kind: KindScripted, Label: "scripted driver"},
	{Name: "openai", Kind: KindOpenAI, Model: "gpt-4o-mini", Endpoint: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY", Label: "openai driver"},
	{Name: "anthropic", Kind: KindAnthropic, Model: "claude-sonnet-4-5", Endpoint: "https://api.anthropic.com", KeyEnv: "ANTHROPIC_API_KEY", Label: "anthropic driver"},
	{Name: "ollama", Kind: KindOpenAI, Model: "llama3.1:8b", Endpoint: "http://localhost:11434/v1", Keyless: true, Label: "openai driver on Ollama", Setup: "ollama pull llama3.1:8b"},
}

// PresetNames lists the Presets' names, "scripted, openai, anthropic, ollama".
func PresetNames() []string {
	names := make([]string, len(Presets))
	for i, p := range Presets {
		names[i] = p.Name
	}
	return names
}

// FindPreset returns the preset named name.
func FindPreset(name string) (Preset, bool) {
	for _, p := range Presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// DriverYAML is the preset's inference.driver block, each key commented,
// each line starting with indent then "driver:"; a scripted one reads
// script. Comments start at column 35, or further when a line is longer.
func (p Preset) DriverYAML(indent, script string) string {
	lines := [][2]string{{"driver:", "the primary driver"}}
	switch {
	case p.Kind == KindScripted:
		lines = append(lines, [2]string{"  kind: scripted", "replays " + script + ": no model, network or key"}, [2]string{"  script: " + script, "relative to this file"})
	case p.Keyless:
		lines = append(lines, [2]string{"  kind: " + p.Kind, "Ollama speaks OpenAI's Chat Completions"}, [2]string{"  model: " + p.Model, p.Setup + " first"},
			[2]string{"  endpoint: " + p.Endpoint, "the base URL an OpenAI SDK takes for Ollama"}, [2]string{"  keyless: true", "Ollama takes no key"})
	default:
		api := map[string]string{KindOpenAI: "OpenAI's Chat Completions", KindAnthropic: "Anthropic's Messages"}[p.Kind]
		base := map[string]string{KindOpenAI: "the base URL the OpenAI SDK takes", KindAnthropic: "the base URL the Anthropic SDK takes, without /v1"}[p.Kind]
		lines = append(lines, [2]string{"  kind: " + p.Kind, api}, [2]string{"  model: " + p.Model, "a model the endpoint serves"},
			[2]string{"  endpoint: " + p.Endpoint, base},
			[2]string{"  api_key: ${" + p.KeyEnv + "}", "from the environment, or .env in the project directory"})
	}
	col := 34
	for _, l := range lines {
		col = max(col, len(indent)+len(l[0])+3)
	}
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%-*s# %s\n", col, indent+l[0], l[1])
	}
	return b.String()
}

// EnvExample is the .env.example a keyed preset scaffolds beside the
// project, "" for a preset that reads no key.
func (p Preset) EnvExample() string {
	if p.KeyEnv == "" {
		return ""
	}
	return fmt.Sprintf("# Copy this file to .env in the same directory and set the key. mur reads\n"+
		"# .env at launch (a variable already in the environment wins); the key never\n"+
		"# reaches a trace, a log or the model, and .env is never installed.\n%s=\n", p.KeyEnv)
}

// GitIgnore is the .gitignore every scaffold writes: the runtime and
// store directories, and the key file.
const GitIgnore = "# made by mur run and mur install: sessions' runtime directories, the project store\n.murmur/\n# holds keys\n.env\n"
