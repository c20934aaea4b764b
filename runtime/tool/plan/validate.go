package plan

import (
	"encoding/json"
	"slices"

	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/tool"
)

// validate is PLAN-5: the first fault, checked in its order, or "".
func (t *planTool) validate(steps []*planStep) string {
	ids := map[string]bool{}
	for _, s := range steps {
		if s.problem != "" {
			return s.problem
		}
	}
	for _, s := range steps {
		if ids[s.ID] {
			return planDuplicate(s.ID)
		}
		ids[s.ID] = true
	}
	checks := []func(*planStep) string{
		func(s *planStep) string {
			if s.kinds == 0 {
				return planNoKind(s.ID)
			} else if s.kinds > 1 {
				return planManyKinds(s.ID)
			}
			return ""
		},
		t.checkTool,
		t.checkShell,
		t.checkCapsule,
		func(s *planStep) string { return checkRefs(s, ids, false) },
		func(s *planStep) string { return checkRefs(s, ids, true) },
		func(s *planStep) string {
			if s.OnError != "" && s.OnError != "fail" && s.OnError != "skip" && s.OnError != "continue" {
				return planBadOnError(s.ID, s.OnError)
			}
			return ""
		},
	}
	for _, check := range checks {
		for _, s := range steps {
			if why := check(s); why != "" {
				return why
			}
		}
	}
	if stuck := cycle(steps); len(stuck) > 0 {
		return planCycle(stuck)
	}
	return ""
}

func (t *planTool) checkTool(s *planStep) string {
	if s.kind() != "tool" {
		return ""
	}
	if _, refusal := t.cfg.Registry().Lookup(s.Tool); refusal != "" {
		return planUnknownTool(s.ID, refusal)
	}
	if slices.Contains(planNotCallable, s.Tool) {
		return planNotCallableTool(s.ID, s.Tool)
	}
	return ""
}

func (t *planTool) checkShell(s *planStep) string {
	if s.kind() != "shell" {
		return ""
	}
	words, err := proc.SplitWords(s.Shell)
	if err != nil {
		return planShellUnreadable(s.ID, err.Error())
	}
	if len(words) == 0 {
		return planShellUnreadable(s.ID, "it is empty")
	}
	if t.cfg.Shell == nil || t.cfg.Shell.Allowed == nil || !t.cfg.Shell.Allowed(words[0]) {
		return planShellNotAllowed(s.ID, words[0])
	}
	return ""
}

// checkCapsule refuses a capsule step whose input is no task, or whose
// capsule capabilities.spawn.allow does not list (PLAN-2, PLAN-5).
func (t *planTool) checkCapsule(s *planStep) string {
	if s.kind() != "capsule" {
		return ""
	}
	if !capsuleInputOK(s.Input) {
		return planCapsuleInput(s.ID)
	}
	if _, ok := t.capsuleVersion(s.Capsule); !ok || t.cfg.Capsules == nil {
		return planCapsuleNotAllowed(s.ID, s.Capsule)
	}
	return ""
}

// capsuleInputOK reports whether a capsule step's input is its task: a
// string or {"objective": "<text>"} (PLAN-2).
func capsuleInputOK(in json.RawMessage) bool {
	var text string
	if json.Unmarshal(in, &text) == nil {
		return true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(in, &obj) != nil || len(obj) != 1 {
		return false
	}
	raw, has := obj["objective"]
	_, isStr := tool.RawString(raw)
	return has && isStr
}

// checkRefs checks depends_on and references name declared steps (fields
// false) or that references read output or status (fields true).
func checkRefs(s *planStep, ids map[string]bool, fields bool) string {
	refs := append(inputRefs(s.Input), ifRefs(s.If)...)
	if fields {
		for _, r := range refs {
			if r.field != "output" && r.field != "status" {
				return planBadField(s.ID, r)
			}
		}
		return ""
	}
	for _, d := range s.DependsOn {
		if !ids[d] {
			return planUnknownDep(s.ID, d)
		}
	}
	for _, r := range refs {
		if !ids[r.step] {
			return planUnknownRef(s.ID, r)
		}
	}
	return ""
}

// cycle returns, in plan order, the steps no order reaches: a cycle leaves
// the scheduler with no step ready (PLAN-5).
func cycle(steps []*planStep) []string {
	done := map[string]bool{}
	for progress := true; progress; {
		progress = false
		for _, s := range steps {
			if done[s.ID] {
				continue
			}
			ready := true
			for _, d := range s.DependsOn {
				ready = ready && done[d]
			}
			if ready {
				done[s.ID], progress = true, true
			}
		}
	}
	var out []string
	for _, s := range steps {
		if !done[s.ID] {
			out = append(out, s.ID)
		}
	}
	return out
}
