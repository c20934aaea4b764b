package launcher

import (
	"fmt"
	"strings"

	"github.com/murmur-go/mur/runtime/manifest"
)

// ScaffoldFile is one file `mur new --roster` writes, relative to ./<name>.
type ScaffoldFile struct {
	Path string // slash-separated, e.g. "lead/murmur.yaml"
	Text string
}

// Scaffold renders the fixed templates of `mur new --roster <name>` (FCLI-9):
// a roster whose entry `lead` (<name>-lead@0.1.0) calls `worker`
// (<name>-worker@0.1.0), both on the preset's driver — on the scripted one
// each with its script, so the formation runs with no model, network or key;
// on a provider with a .env.example naming the key both read from the
// project's .env — and a .gitignore. It reads nothing.
func Scaffold(name string, p manifest.Preset) []ScaffoldFile {
	r := strings.NewReplacer("{{name}}", name, "{{driver}}", memberDriver(p))
	files := []ScaffoldFile{
		{"roster.yaml", r.Replace(rosterTemplate)},
		{"lead/murmur.yaml", r.Replace(leadTemplate)},
		{"lead/script.yaml", leadScript},
		{"worker/murmur.yaml", r.Replace(workerTemplate)},
		{"worker/script.yaml", workerScript},
		{".gitignore", manifest.GitIgnore},
	}
	if p.Kind == manifest.KindScripted {
		return files
	}
	files = []ScaffoldFile{files[0], files[1], files[3], files[5]}
	if env := p.EnvExample(); env != "" {
		files = append(files, ScaffoldFile{".env.example", env})
	}
	return files
}

// memberDriver is a member's inference.driver block, with FCLI-9's comment
// showing the provider form under the scripted one.
func memberDriver(p manifest.Preset) string {
	if p.Kind == manifest.KindScripted {
		return p.DriverYAML("  ", "script.yaml") + driverComment
	}
	return p.DriverYAML("  ", "")
}

// ScaffoldSummary is the stdout of `mur new --roster <name>` (FCLI-9), on
// the preset's driver.
func ScaffoldSummary(name string, p manifest.Preset) string {
	rows := [][2]string{
		{name + "/roster.yaml", "lead is the entry member; lead may call worker"},
		{name + "/lead/murmur.yaml", fmt.Sprintf("capsule %s-lead@0.1.0, %s", name, p.Label)},
		{name + "/worker/murmur.yaml", fmt.Sprintf("capsule %s-worker@0.1.0, serves peers, %s", name, p.Label)},
	}
	var next []string
	if p.Setup != "" {
		next = append(next, p.Setup)
	}
	if p.KeyEnv != "" {
		rows = append(rows, [2]string{name + "/.env.example", fmt.Sprintf("names %s, the key both members read", p.KeyEnv)})
		next = append(next, fmt.Sprintf("cp %[1]s/.env.example %[1]s/.env    # then set %[2]s in %[1]s/.env", name, p.KeyEnv))
	}
	// The members go into the formation's own project store, so a second
	// scaffold of the same name elsewhere never meets them.
	next = append(next, "cd "+name, "mur install lead", "mur install worker",
		"mur run --roster . --task \"<your task>\"")
	w := 0
	for _, r := range rows {
		w = max(w, len(r[0]))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Scaffolded formation '%s' in ./%s\n", name, name)
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s   %s\n", w, r[0], r[1])
	}
	b.WriteString("\nNext:\n")
	for _, n := range next {
		b.WriteString("  " + n + "\n")
	}
	return b.String()
}

const rosterTemplate = `# The formation '{{name}}': launch it with  mur run --roster {{name}} --task "<your task>"
roster_version: 1                 # the roster format; this mur reads 1
members:                          # order matters: peers start, and are listed, in it
  - name: lead                    # the member's name inside this roster
    # capsule: the installed capsule it runs
    capsule: {{name}}-lead
    version: "0.1.0"              # that capsule's exact version
    entry: true                   # lead takes the formation's task; no member calls it
  - name: worker                  # a peer: it starts first and works only at its door
    # capsule: the installed capsule it runs
    capsule: {{name}}-worker
    version: "0.1.0"              # that capsule's exact version
reachability:                     # who may call whom; closed unless a rule opens it
  # reachability: all would pair nobody here: it pairs only members that both
  # declare exports.peer_tasks.accept: true, and lead does not.
  - from: lead                    # the caller
    to: [worker]                  # the members it may call with call-member
`

const driverComment = `  # To run on a model instead of the script, replace driver with, e.g.:
  #   driver:
  #     kind: openai                    # or anthropic
  #     model: gpt-4o-mini              # anthropic: e.g. claude-sonnet-4-5
  #     api_key: ${OPENAI_API_KEY}      # anthropic: ${ANTHROPIC_API_KEY}
`

const leadTemplate = `# {{name}}-lead: the entry member of the formation '{{name}}'
# name: the capsule's name
name: {{name}}-lead
version: "0.1.0"                  # its exact version
inference:                        # how the member thinks
{{driver}}  system_prompt: >-               # what the model is told it is
    You lead the formation. Hand the whole task to the member worker with
    call-member, then end your turn. When worker's answer arrives, reply with
    that answer.
capabilities:                     # what the member may reach
  network:                        # its outbound HTTP
    allow: [localhost]            # lets call-member reach worker's door on this machine
lifecycle:                        # how the member takes tasks under mur run --roster --task
  # Without --task the formation is in door mode: the entry takes tasks at its
  # door, one after another, until mur stop or Ctrl-C, whatever these say.
  task_acceptance: single         # exactly one task: the formation's
  after_task: exit                # the member, and so the formation, ends with it
network:                          # its door
  authentication:                 # every member's door requires a token once members call each other
    scheme: bearer                # the only scheme
trace:                            # its trace.jsonl
  retain:                         # old sessions, and this project's formation directories
    max_sessions: 20              # keep the newest 20
`

const workerTemplate = `# {{name}}-worker: a peer of the formation '{{name}}' that serves lead's calls
# name: the capsule's name
name: {{name}}-worker
version: "0.1.0"                  # its exact version
inference:                        # how the member thinks
{{driver}}  system_prompt: >-               # what the model is told it is
    You do the task another member hands you and reply with the result.
lifecycle:                        # how the member takes tasks
  task_acceptance: queue          # one task at a time, the next ones queued
  after_task: sleep               # stays up between tasks until the formation ends
exports:                          # what the member offers others
  peer_tasks:                     # tasks from other members of a formation
    accept: true                  # formation members may give it tasks
network:                          # its door
  authentication:                 # every member's door requires a token once members call each other
    scheme: bearer                # the only scheme
`

// leadScript is FCLI-9's script for lead, exactly.
const leadScript = `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: call-member, input: {member: worker, task: "{{task}}"}}]
      - text: "worker has the task; waiting for its answer."
      - text: "{{member_answer}}"
`

const workerScript = `script_version: 1
rules:
  - match: {always: true}
    turns:
      - text: "worker did: {{task}}"
`
