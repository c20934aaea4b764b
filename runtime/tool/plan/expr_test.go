package plan

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestEvalIf_PLAN3(t *testing.T) {
	vals := map[string]string{"$a.status": "failed", "$a.output": "b==c", "$b.status": "success", "$b.output": ""}
	resolve := func(r ref) (string, error) {
		if v, ok := vals[r.String()]; ok {
			return v, nil
		}
		return "", errors.New("unsettled " + r.String())
	}
	tests := []struct {
		cond string
		want bool
		err  string
	}{
		{cond: "$a.status == 'failed'", want: true},
		{cond: `$a.status != "failed"`, want: false},
		{cond: "$a.output == 'b==c'", want: true}, // an operator inside quotes is part of the literal
		{cond: "$b.output < 'a'", want: true},
		{cond: "'b' > 'a' && $b.status == 'success'", want: true},
		{cond: "$a.status == 'x' || $b.status == 'success' && $a.status == 'failed'", want: true},
		{cond: "$a.status == 'x' || $b.status == 'x' && $a.status == 'failed'", want: false},
		{cond: "$a.status = 'failed'", err: `if "$a.status = 'failed'": '=' is neither a reference nor a quoted literal`},
		{cond: "$a.status", err: `if "$a.status": a condition compares two values with ==, !=, > or <`},
		{cond: "$a.status == 'failed", err: `if "$a.status == 'failed": a quoted literal is not closed: 'failed`},
		{cond: "$a.status ==", err: `if "$a.status ==": the condition ends where a value is expected`},
		{cond: "$a.status == failed", err: `if "$a.status == failed": 'failed' is neither a reference nor a quoted literal`},
		{cond: "$c.status == 'x'", err: `if "$c.status == 'x'": unsettled $c.status`},
		{cond: "'a' == 'a' 'b'", err: `if "'a' == 'a' 'b'": unexpected 'b'`},
	}
	for _, tt := range tests {
		got, err := evalIf(tt.cond, resolve)
		switch {
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("evalIf(%q) error = %v, want %q", tt.cond, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("evalIf(%q) = %v, %v; want %v", tt.cond, got, err, tt.want)
		}
	}
}

func TestSubstitute_PLAN3(t *testing.T) {
	resolve := func(r ref) (string, error) {
		if r.step == "a" {
			return "A-" + r.field, nil
		}
		return "", errors.New("no " + r.step)
	}
	in := json.RawMessage(`{"x":"$a.output","deep":[{"y":"$a.status"},"$a.output tail","$HOME",3],"z":"$a.b.c"}`)
	if refs := inputRefs(in); len(refs) != 3 || refs[0].step != "a" && refs[0].step != "a.b" {
		t.Errorf("inputRefs = %v", refs)
	}
	_, err := substitute(in, resolve)
	if err == nil || err.Error() != "no a.b" {
		t.Errorf("substitute error = %v, want no a.b", err)
	}
	in = json.RawMessage(`{"x":"$a.output","deep":[{"y":"$a.status"},"$a.output tail","$HOME",3]}`)
	got, err := substitute(in, resolve)
	if want := `{"deep":[{"y":"A-status"},"$a.output tail","$HOME",3],"x":"A-output"}`; err != nil || string(got) != want {
		t.Errorf("substitute = %s, %v; want %s", got, err, want)
	}
	if got, _ := substitute(nil, resolve); string(got) != "{}" {
		t.Errorf("substitute(nil) = %s", got)
	}
}
