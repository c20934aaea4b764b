// Package switchdriver holds switch-driver (tools.md §8, SWD-1..3): the
// model picks which declared driver choice serves its next inference call.
// The switch is applied when the loop writes control_change (Rec.Written).
//
// # Example
//
//	impl[tool.NameSwitchDriver] = switchdriver.New(choices, current) // current: a Switcher
package switchdriver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/murmur-go/mur/runtime/tool"
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

// New returns the switch-driver tool over choices, primary first
// then each alternate (SWD-1..3).
func New(choices []Choice, sw Switcher) tool.Tool {
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

func (t *switchTool) Spec() tool.Spec {
	schema := `{"type":"object","properties":{"driver":{"type":"string","enum":` + tool.JSON(t.names()) + `}},"required":["driver"]}`
	var list []string
	for _, c := range t.choices {
		list = append(list, fmt.Sprintf("%s (%s, model %s)", c.Name, c.Kind, c.Model))
	}
	desc := "Selects the driver choice that serves your next inference call and every one after it; the conversation carries over. Choices: " + strings.Join(list, ", ") + "."
	return tool.Spec{Name: tool.NameSwitchDriver, Description: desc, InputSchema: json.RawMessage(schema), Kind: tool.KindRuntime}
}

// SWD-3's refusal texts.
func swdUndeclared(name string, choices []string) string {
	return fmt.Sprintf("driver '%s' is not a declared driver choice; the choices are %s", name, strings.Join(choices, ", "))
}

func swdUnavailable(name, credential string) string {
	return fmt.Sprintf("driver choice '%s' is unavailable: its credential %s is not set", name, credential)
}

func controlRefused(status int, reason string) tool.Rec {
	return tool.Rec{Record: trace.ControlRefused{Principal: "agent", Status: status, Reason: reason, Kind: "setting", Name: "inference.driver"}}
}

// switched is a switch-driver call's data (SWD-2).
type switched struct {
	Driver   string `json:"driver"`
	Previous string `json:"previous"`
}

func (t *switchTool) Call(_ context.Context, _ *tool.CallContext, input json.RawMessage) tool.Result {
	const self = tool.NameSwitchDriver
	name, ok := tool.StringField(tool.DecodeObject(input), "driver")
	if !ok {
		return tool.Needs(self, "driver")
	}
	var choice *Choice
	for i := range t.choices {
		if t.choices[i].Name == name {
			choice = &t.choices[i]
		}
	}
	if choice == nil {
		r := tool.Refusal(self, swdUndeclared(name, t.names()))
		r.Records = []tool.Rec{controlRefused(422, "undeclared_driver")}
		return r
	}
	if !choice.Available {
		r := tool.Refusal(self, swdUnavailable(name, choice.Credential))
		r.Records = []tool.Rec{controlRefused(409, "credential_unresolvable")}
		return r
	}
	prev := t.sw.Current()
	return tool.Result{
		Status:  tool.Passed,
		Summary: fmt.Sprintf("%s: %s → %s", self, prev, name),
		Data:    tool.JSON(switched{Driver: name, Previous: prev}),
		Records: []tool.Rec{{
			Record: trace.ControlChange{Principal: "agent", Kind: "setting", Name: "inference.driver",
				Action: "set", Previous: prev, Value: name, AppliesFrom: "next_inference_call"},
			Written: func(id string) { t.sw.Switch(name, id) },
		}},
	}
}
