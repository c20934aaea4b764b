package switchdriver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/tool"
)

type fakeSwitcher struct{ cur, change string }

func (f *fakeSwitcher) Current() string              { return f.cur }
func (f *fakeSwitcher) Switch(name, changeID string) { f.cur, f.change = name, changeID }

func switchFixture() (tool.Tool, *fakeSwitcher) {
	sw := &fakeSwitcher{cur: "primary"}
	return New([]Choice{
		{Name: "primary", Kind: "anthropic", Model: "claude-sonnet-4", Available: true, Credential: "ANTHROPIC_API_KEY"},
		{Name: "local", Kind: "openai", Model: "qwen2.5-coder:7b", Available: true},
		{Name: "backup", Kind: "openai", Model: "gpt-4o", Available: false, Credential: "OPENAI_API_KEY"},
	}, sw), sw
}

func TestSwitchDriverSpec_SWD1(t *testing.T) {
	tl, _ := switchFixture()
	s := tl.Spec()
	golden.Check(t, "switch_driver_spec", s.Description+"\n"+string(s.InputSchema)+"\n")
}

func TestSwitchDriverAccepted_SWD2(t *testing.T) {
	tl, sw := switchFixture()
	res := tl.Call(context.Background(), &tool.CallContext{TaskID: "tsk_a", Turn: 1}, json.RawMessage(`{"driver":"local"}`))
	if res.IsError() || res.Data != `{"driver":"local","previous":"primary"}` {
		t.Errorf("result = %+v", res)
	}
	if sw.cur != "primary" {
		t.Error("switched before control_change was written")
	}
	if len(res.Records) != 1 {
		t.Fatalf("records = %v", res.Records)
	}
	rec := res.Records[0]
	want := `{"event_type":"control_change","principal":"agent","kind":"setting","name":"inference.driver","action":"set","previous":"primary","value":"local","applies_from":"next_inference_call"}`
	if got := rec.String(); got != want {
		t.Errorf("record = %s, want %s", got, want)
	}
	rec.Written("evt_1")
	if sw.cur != "local" || sw.change != "evt_1" {
		t.Errorf("switcher = %+v", sw)
	}
}

func TestSwitchDriverRefusals_SWD3(t *testing.T) {
	tl, sw := switchFixture()
	var out []string
	for _, in := range []string{`{"driver":"gpt"}`, `{"driver":"backup"}`, `{}`, `{"driver":3}`} {
		res := tl.Call(context.Background(), &tool.CallContext{}, json.RawMessage(in))
		if !res.Refused {
			t.Errorf("%s: not refused", in)
		}
		line := in + " → " + res.Data
		for _, r := range res.Records {
			line += "\n  " + r.String()
		}
		out = append(out, line)
	}
	golden.Check(t, "switch_driver_refusals", strings.Join(out, "\n")+"\n")
	if sw.cur != "primary" {
		t.Errorf("a refusal switched to %s", sw.cur)
	}
}
