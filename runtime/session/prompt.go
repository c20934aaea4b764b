package session

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/murmur-go/mur/internal/diag"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/choice"
	"github.com/murmur-go/mur/runtime/manifest"
)

// System prompt sources (session_start.system_prompt_source).
const (
	promptManifest = "manifest"
	promptCLI      = "cli"
	promptNone     = "none"
)

// readFiles is MAN-4 step 9: the system prompt file (E-RUN-009) and every
// scripted choice's script (E-RUN-009, E-MAN-003); it also builds the drivers.
func (l *Launch) readFiles(m *manifest.Manifest) error {
	switch {
	case l.Opts.SystemPrompt != nil:
		l.Prompt, l.PromptSource = *l.Opts.SystemPrompt, promptCLI
	case m.Inference.SystemPromptFile != "":
		p := m.SystemPromptPath()
		b, err := os.ReadFile(p)
		if err != nil {
			return diag.RunUnreadable(p, osText(err)).WithErr(err)
		}
		l.Prompt, l.PromptSource = string(b), promptManifest
	case m.Inference.SystemPrompt != "":
		l.Prompt, l.PromptSource = m.Inference.SystemPrompt, promptManifest
	default:
		l.PromptSource = promptNone
	}
	if l.Prompt == "" {
		l.PromptSource = promptNone
		if l.Opts.SystemPrompt != nil {
			l.PromptSource = promptCLI // --system-prompt "" clears every source
		}
	}
	l.Drivers = map[string]driver.Driver{}
	for _, c := range m.Inference.Choices() {
		d, err := newDriver(m, c, l.Env.Getenv)
		if err != nil {
			return err
		}
		l.Drivers[c.Name] = d
	}
	return nil
}

// newDriver builds the driver serving one choice (capsule.md §5, DRV-2):
// the API key is read once, here, from the environment after .env (DRV-3).
func newDriver(m *manifest.Manifest, c manifest.DriverBlock, getenv func(string) string) (driver.Driver, error) {
	var key driver.Secret
	if c.APIKeyEnv != "" {
		key = driver.Secret(getenv(c.APIKeyEnv))
	}
	d, err := choice.Open(choice.Spec{Kind: c.Kind, Endpoint: c.Endpoint, APIKey: key, Credential: c.APIKeyEnv,
		Script: m.ScriptPath(c), Config: c.Config})
	var oe *driver.OptionError
	switch {
	case errors.As(err, &oe):
		return nil, diag.ManInvalid(m.Path, c.Where+".config."+oe.Key, oe.Fault)
	case err != nil:
		if _, ok := diag.As(err); ok {
			return nil, err
		}
		return nil, diag.ManInvalid(m.Path, c.Where, err.Error())
	}
	return d, nil
}

// systemPrompt renders LOOP-6's system prompt: the [Capsule] block, then a
// blank line and the resolved prompt (if any); buildTools appends the plan
// guidance after a blank line when submit-plan exists (STAGE-4).
func systemPrompt(name, version, ses, url, workdir, prompt string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[Capsule]\nname: %s\nversion: %s\nsession: %s\ndoor: %s\nworkdir: %s", name, version, ses, url, workdir)
	if prompt != "" {
		b.WriteString("\n\n")
		b.WriteString(prompt)
	}
	return b.String()
}
