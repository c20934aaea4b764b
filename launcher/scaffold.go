package launcher

import (
	"fmt"
	"strings"
)

// ScaffoldFile is one file `mur new --roster` writes, relative to ./<NAME>.
type ScaffoldFile struct {
	Path string // slash-separated, e.g. "lead/murmur.yaml"
	Text string
}

// Scaffold renders the fixed templates of `mur new --roster <name>` (FCLI-9):
// a roster whose entry `lead` (<name>-lead@0.1.0) calls `worker`
// (<name>-worker@0.1.0), both on the scripted driver, so the formation runs
// with no model, network or key. It reads nothing.
func Scaffold(name string) []ScaffoldFile {
	r := strings.NewReplacer("{{name}}", name)
	return []ScaffoldFile{
		{"roster.yaml", r.Replace(rosterTemplate)},
		{"lead/murmur.yaml", r.Replace(leadTemplate)},
		{"lead/script.yaml", leadScript},
		{"worker/murmur.yaml", r.Replace(workerTemplate)},
		{"worker/script.yaml", workerScript},
	}
}

// ScaffoldSummary is the stdout of `mur new --roster <name>` (FCLI-9).
func ScaffoldSummary(name string) string {
	rows := [][2]string{
		{name + "/roster.yaml", "lead is the entry member; lead may call worker"},
		{name + "/lead/murmur.yaml", fmt.Sprintf("capsule %s-lead@0.1.0, scripted driver", name)},
		{name + "/worker/murmur.yaml", fmt.Sprintf("capsule %s-worker@0.1.0, serves peers, scripted driver", name)},
	}
	w := 0
	for _, r := range rows {
		w = max(w, len(r[0]))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Scaffolded formation '%s' in ./%s\n", name, name)
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s   %s\n", w, r[0], r[1])
	}
	fmt.Fprintf(&b, "\nNext:\n  mur install -g %s/lead\n  mur install -g %s/worker\n  mur run --roster %s --task \"<your task>\"\n", name, name, name)
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
  driver:                         # the primary driver
    kind: scripted                # replays script.yaml: no model, network or key
    script: script.yaml           # relative to this file
` + driverComment + `  system_prompt: >-               # what the model is told it is
    You lead the formation. Hand the whole task to the member worker with
    call-member, then end your turn. When worker's answer arrives, reply with
    that answer.
capabilities:                     # what the member may reach
  network:                        # its outbound HTTP
    allow: [localhost]            # lets call-member reach worker's door on this machine
lifecycle:                        # how the member takes tasks
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
  driver:                         # the primary driver
    kind: scripted                # replays script.yaml: no model, network or key
    script: script.yaml           # relative to this file
` + driverComment + `  system_prompt: >-               # what the model is told it is
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
