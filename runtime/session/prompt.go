package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/diag"
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
// scripted choice's script (E-RUN-009, E-MAN-003); it also builds the
// drivers. Under transport: process it then finds the harness binary
// (E-RUN-006, process.md PROC-4) instead.
func (l *Launch) readFiles(m *manifest.Manifest) error {
	switch {
	case l.Opts.SystemPrompt != nil:
		l.Prompt, l.PromptSource = *l.Opts.SystemPrompt, promptCLI
	case m.Inference.SystemPromptFile != "":
		p, err := l.ownFile(m, "inference.system_prompt_file", m.Inference.SystemPromptFile, m.SystemPromptPath())
		if err != nil {
			return err
		}
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
	if err := l.readCompactionPrompt(m); err != nil {
		return err
	}
	l.Drivers = map[string]driver.Driver{}
	if m.Inference.Process() { // no driver: the harness reaches its model (PROC-2)
		return l.resolveHarness(m)
	}
	for _, c := range m.Inference.Choices() {
		script, err := l.ownFile(m, c.Where+".script", c.Script, m.ScriptPath(c))
		if err != nil {
			return err
		}
		d, err := newDriver(m, c, script, l.Env.Getenv)
		if err != nil {
			return err
		}
		l.Drivers[c.Name] = d
	}
	return nil
}

// readCompactionPrompt reads inference.compaction.system_prompt_file at
// launch, as the system prompt's file is (E-RUN-009); under transport:
// process nothing compacts and nothing is read.
func (l *Launch) readCompactionPrompt(m *manifest.Manifest) error {
	cc := m.Inference.Compaction
	if m.Inference.Process() || cc.SystemPromptFile == "" {
		l.CompactionPrompt = cc.SystemPrompt
		return nil
	}
	path := cc.SystemPromptFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.Dir, path)
	}
	p, err := l.ownFile(m, "inference.compaction.system_prompt_file", cc.SystemPromptFile, path)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return diag.RunUnreadable(p, osText(err)).WithErr(err)
	}
	l.CompactionPrompt = string(b)
	return nil
}

// ownFile is the path to read for a file the manifest names at key: path
// (resolved against the manifest's directory) for a capsule of the
// operator's own, which may name any file, as capsule.md §1.6 lets it; for
// an installed one (the store form, STORE-3), a file inside its tree only
// (manifest.OwnFile, E-MAN-003). An empty value reads nothing.
func (l *Launch) ownFile(m *manifest.Manifest, key, value, path string) (string, error) {
	if value == "" || l.Opts.StoreName == "" {
		return path, nil
	}
	return m.OwnFile(key, value)
}

// newDriver builds the driver serving one choice (capsule.md §5, DRV-2),
// a scripted one replaying the script at script: the API key is read once,
// here, from the environment after .env (DRV-3). A window that leaves no
// input budget is refused here, at launch (DRV-10).
func newDriver(m *manifest.Manifest, c manifest.DriverBlock, script string, getenv func(string) string) (driver.Driver, error) {
	var key driver.Secret
	if c.APIKeyEnv != "" {
		key = driver.Secret(getenv(c.APIKeyEnv))
	}
	d, err := choice.Open(choice.Spec{Kind: c.Kind, Endpoint: c.Endpoint, APIKey: key, Credential: c.APIKeyEnv,
		Script: script, Config: c.Config})
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
	if o, err := driver.ParseOptions(c.Config); err == nil {
		outputCap := int64(m.Inference.MaxTokens)
		if b := o.InputBudget(m.Context.MaxTokens, outputCap); b.Has() && b.Tokens <= 0 {
			key := c.Where + ".config.context_window_tokens"
			if m.Context.MaxTokens > 0 {
				key = "context.max_tokens"
			}
			return nil, diag.ManNoInputBudget(m.Path, key, b.Window, outputCap)
		}
	}
	return d, nil
}

// systemPrompt renders LOOP-6's system prompt: the [Capsule] block (the
// capsule's name and version), then a blank line and the resolved prompt
// (if any); buildTools appends the plan guidance after a blank line when
// submit-plan exists (STAGE-4). Nothing in it changes from one session of
// a capsule to the next, so with the tools (sent in a fixed order) it is a
// prefix a provider can cache; what is per session is sessionContext.
func systemPrompt(name, version, prompt string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[Capsule]\nname: %s\nversion: %s", name, version)
	if prompt != "" {
		b.WriteString("\n\n")
		b.WriteString(prompt)
	}
	return b.String()
}

// sessionContext is the [Session] block: the session id, the door and the
// workdir, which differ between sessions of one capsule. It is the user
// message right after each task's first one, so that everything before the
// task (system prompt, tools) stays the same bytes from session to session
// and the provider's prompt cache serves it.
func sessionContext(ses, url, workdir string) string {
	return fmt.Sprintf("[Session]\nsession: %s\ndoor: %s\nworkdir: %s", ses, url, workdir)
}
