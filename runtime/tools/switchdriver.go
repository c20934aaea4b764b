package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/murmur-go/mur/runtime/trace"
)

// Choice is one driver choice (capsule.md MAN-8, DRV-2).
type Choice struct {
	Name       string // "primary" or an alternate's name
	Kind       string
	Model      string
	Available  bool   // its credential resolved at launch
	Credential string // the env var it reads; "" for none/keyless
}

// Switcher is the session's current driver choice (SWD-2).
type Switcher interface {
	// Current names the choice serving the next agent inference call.
	Current() string
	// Switch makes name serve every later agent inference call; changeID is
	// the control_change record's event id, for control_applied.
	Switch(name, changeID string)
}

// SwitchDriver returns the switch-driver tool over choices, primary first
// then each alternate (SWD-1..3).
func SwitchDriver(choices []Choice, sw Switcher) Tool {
	return &switchTool{choices: choices, sw: sw}
}

type switchTool struct {
	choices []Choice
	sw      Switcher
}

func (t *switchTool) names() []string {
	out := make([]string, len(t.choices))
	for i, c := range t.choices {
		out[i] = c.Name
	}
	return out
}

func (t *switchTool) Spec() Spec {
	schema := `{"type":"object","properties":{"driver":{"type":"string","enum":` + JSON(t.names()) + `}},"required":["driver"]}`
	var list []string
	for _, c := range t.choices {
		list = append(list, fmt.Sprintf("%s (%s, model %s)", c.Name, c.Kind, c.Model))
	}
	desc := "Selects the driver choice that serves your next inference call and every one after it; the conversation carries over. Choices: " + strings.Join(list, ", ") + "."
	return Spec{Name: NameSwitchDriver, Description: desc, InputSchema: json.RawMessage(schema), Kind: KindRuntime}
}

// SWD-3's refusal texts (ours).
func swdUndeclared(name string, choices []string) string {
	return fmt.Sprintf("driver '%s' is not a declared driver choice; the choices are %s", name, strings.Join(choices, ", "))
}

func swdUnavailable(name, credential string) string {
	return fmt.Sprintf("driver choice '%s' is unavailable: its credential %s is not set", name, credential)
}

func controlRefused(status int, reason string) Rec {
	return Rec{Record: trace.ControlRefused{Principal: "agent", Status: status, Reason: reason, Kind: "setting", Name: "inference.driver"}}
}

// switched is a switch-driver call's data (SWD-2).
type switched struct {
	Driver   string `json:"driver"`
	Previous string `json:"previous"`
}

func (t *switchTool) Call(_ context.Context, _ *CallContext, input json.RawMessage) Result {
	const tool = NameSwitchDriver
	raw, ok := decodeObject(input)["driver"]
	name, isStr := rawString(raw)
	if !ok || !isStr {
		return needs(tool, "driver")
	}
	var choice *Choice
	for i := range t.choices {
		if t.choices[i].Name == name {
			choice = &t.choices[i]
		}
	}
	if choice == nil {
		r := Refusal(tool, swdUndeclared(name, t.names()))
		r.Records = []Rec{controlRefused(422, "undeclared_driver")}
		return r
	}
	if !choice.Available {
		r := Refusal(tool, swdUnavailable(name, choice.Credential))
		r.Records = []Rec{controlRefused(409, "credential_unresolvable")}
		return r
	}
	prev := t.sw.Current()
	return Result{
		Status:  Passed,
		Summary: fmt.Sprintf("%s: %s → %s", tool, prev, name),
		Data:    JSON(switched{Driver: name, Previous: prev}),
		Records: []Rec{{
			Record: trace.ControlChange{Principal: "agent", Kind: "setting", Name: "inference.driver",
				Action: "set", Previous: prev, Value: name, AppliesFrom: "next_inference_call"},
			Written: func(id string) { t.sw.Switch(name, id) },
		}},
	}
}
