package harness

import (
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/harness/bridge"
	"github.com/murmur-go/mur/runtime/manifest"
)

// Files a run reads from the records directory's harness/ (PROC-6, PROC-8):
// claude's MCP config and codex's proxy file hold the bridge's bearer.
const (
	MCPConfigFile    = "mcp.json"
	ProxyConfigFile  = "bridge.json"
	SystemPromptFile = "system-prompt.md"
)

// Dialect is what one harness CLI needs (process.md §2, §4): its argv, its
// environment, its event stream, and the version this build was tested
// against (PROC-10).
type Dialect struct {
	// Key is the manifest's inference.harness: manifest.HarnessClaude or
	// manifest.HarnessCodex.
	Key string
	// Name is the harness in records and messages: "claude-code", "codex".
	Name string
	// Tested is the version line's version this build was tested against.
	Tested string

	argv      func(r Run) []string
	env       []string // variables set beside env.allow's
	NewParser func() Parser
}

// Run is what a dialect's argv names for one spawn.
type Run struct {
	Binary string // absolute path (PROC-4)
	Dir    string // the records directory's harness/ (<H>)
	URL    string // the bridge's http://127.0.0.1:<port>/mcp
	Model  string // inference.model, "" = the harness's default
	// Resume is the harness session id a resume continues; "" for new.
	Resume string
	// Proxy is the absolute path of the mur binary codex starts as its
	// stdio MCP server (bridge.Proxy), which reads <H>/bridge.json.
	Proxy string
}

// Claude is the Claude Code dialect (PROC-6, HEV-1), tested against 2.1.328.
var Claude = Dialect{
	Key: manifest.HarnessClaude, Name: "claude-code", Tested: "2.1.328",
	argv: claudeArgv,
	// Without it Claude Code also sends the model a DeferredToolPlaceholder
	// tool (PROC-8, verified).
	env:       []string{"ENABLE_TOOL_SEARCH=false"},
	NewParser: NewClaudeParser,
}

// Codex is the Codex CLI dialect (PROC-7, HEV-2), tested against 0.169.0.
var Codex = Dialect{
	Key: manifest.HarnessCodex, Name: "codex", Tested: "0.169.0",
	argv:      codexArgv,
	NewParser: NewCodexParser,
}

// DialectOf returns the dialect of inference.harness key.
func DialectOf(key string) Dialect {
	if key == manifest.HarnessCodex {
		return Codex
	}
	return Claude
}

// Argv is the run's exact argv, the binary first (PROC-6, PROC-7). It never
// holds the bridge's token.
func (d Dialect) Argv(r Run) []string { return d.argv(r) }

func claudeArgv(r Run) []string {
	a := []string{r.Binary, "-p", "--output-format", "stream-json", "--verbose",
		"--tools", "", "--setting-sources", "", "--strict-mcp-config",
		"--mcp-config", filepath.Join(r.Dir, MCPConfigFile),
		"--allowedTools", "mcp__mur", "--permission-mode", "dontAsk",
		"--system-prompt-file", filepath.Join(r.Dir, SystemPromptFile)}
	if r.Model != "" {
		a = append(a, "--model", r.Model)
	}
	if r.Resume != "" {
		a = append(a, "--resume", r.Resume)
	}
	return a
}

func codexArgv(r Run) []string {
	a := []string{r.Binary, "exec"}
	if r.Resume != "" {
		a = append(a, "resume")
	}
	a = append(a, "--json", "--skip-git-repo-check", "--ignore-user-config",
		"--disable", "shell_tool", "--disable", "unified_exec", "--disable", "view_image",
		"--disable", "multi_agent", "--disable", "goals",
		"-c", `web_search="disabled"`,
		"-c", "tools.experimental_request_user_input.enabled=false",
		"-c", "project_doc_max_bytes=0",
		"-c", "model_instructions_file="+tomlString(filepath.Join(r.Dir, SystemPromptFile)),
		"-c", "mcp_servers.mur.command="+tomlString(r.Proxy),
		"-c", "mcp_servers.mur.args=["+tomlString(bridge.ProxyCommand)+", "+tomlString(filepath.Join(r.Dir, ProxyConfigFile))+"]",
		"-c", "mcp_servers.mur.required=true",
		"-c", `mcp_servers.mur.default_tools_approval_mode="approve"`,
		"-c", "mcp_servers.mur.tool_timeout_sec=86400")
	if r.Model != "" {
		a = append(a, "-m", r.Model)
	}
	if r.Resume != "" {
		a = append(a, r.Resume)
	}
	return append(a, "-")
}

// tomlString is s as a TOML basic string: \ and " escaped (PROC-7).
func tomlString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// Env is the harness's whole environment (PROC-8): each allow name that
// lookup finds set (a set-but-empty value kept, an unset one left out),
// then the dialect's own variables. Nothing else: no MURMUR_* of the
// runtime, no formation variable, no bridge token.
func (d Dialect) Env(allow []string, lookup func(string) (string, bool)) []string {
	var env []string
	for _, name := range allow {
		if v, ok := lookup(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return append(env, d.env...)
}
