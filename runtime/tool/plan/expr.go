package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/murmur-go/mur/runtime/tool"
)

// ref is a "$<id>.<field>" reference (PLAN-3).
type ref struct{ step, field string }

func (r ref) String() string { return "$" + r.step + "." + r.field }

// parseRef reads s as a whole reference: "$", a step id, ".", a field (the
// part after the last '.'). ok is false for any other string.
func parseRef(s string) (ref, bool) {
	if !strings.HasPrefix(s, "$") {
		return ref{}, false
	}
	i := strings.LastIndexByte(s, '.')
	if i < 2 || i == len(s)-1 || strings.ContainsAny(s, " \t\n") {
		return ref{}, false
	}
	return ref{step: s[1:i], field: s[i+1:]}, true
}

// inputRefs lists the references among input's strings, at any depth.
func inputRefs(input json.RawMessage) []ref {
	if len(input) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(input, &v) != nil {
		return nil
	}
	var out []ref
	walkStrings(v, func(s string) string {
		if r, ok := parseRef(s); ok {
			out = append(out, r)
		}
		return s
	})
	return out
}

// walkStrings replaces every string in v (decoded JSON) with f's result.
func walkStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walkStrings(x[i], f)
		}
	case map[string]any:
		for k := range x {
			x[k] = walkStrings(x[k], f)
		}
	}
	return v
}

// substitute replaces each whole-string reference in input with its value
// at dispatch (PLAN-3); an unresolvable one fails the step.
func substitute(input json.RawMessage, resolve func(ref) (string, error)) (json.RawMessage, error) {
	if len(input) == 0 {
		return json.RawMessage("{}"), nil
	}
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return nil, err
	}
	var first error
	v = walkStrings(v, func(s string) string {
		r, ok := parseRef(s)
		if !ok || first != nil {
			return s
		}
		val, err := resolve(r)
		if err != nil {
			first = err
		}
		return val
	})
	if first != nil {
		return nil, first
	}
	return json.RawMessage(tool.JSON(v)), nil
}

// token is one lexeme of an if condition.
type token struct {
	kind string // "op", "lit", "ref"
	text string
	ref  ref
}

// lexIf splits an if condition into references, quoted literals and the
// operators == != > < && || (PLAN-3). An operator inside quotes is part of
// the literal.
func lexIf(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("a quoted literal is not closed: %s", s[i:])
			}
			out = append(out, token{kind: "lit", text: s[i+1 : i+1+j]})
			i += j + 2
		case strings.HasPrefix(s[i:], "==") || strings.HasPrefix(s[i:], "!=") ||
			strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||"):
			out = append(out, token{kind: "op", text: s[i : i+2]})
			i += 2
		case c == '>' || c == '<':
			out = append(out, token{kind: "op", text: s[i : i+1]})
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n'\"=!&|<>", rune(s[j])) {
				j++
			}
			if j == i {
				j++
			}
			word := s[i:j]
			r, ok := parseRef(word)
			if !ok {
				return nil, fmt.Errorf("'%s' is neither a reference nor a quoted literal", word)
			}
			out = append(out, token{kind: "ref", text: word, ref: r})
			i = j
		}
	}
	return out, nil
}

// ifRefs lists the references an if condition names; a condition that does
// not lex names none here and fails its step at dispatch.
func ifRefs(cond string) []ref {
	toks, err := lexIf(cond)
	if err != nil {
		return nil
	}
	var out []ref
	for _, t := range toks {
		if t.kind == "ref" {
			out = append(out, t.ref)
		}
	}
	return out
}

// evalIf evaluates an if condition (PLAN-3): comparisons ==, !=, > and <
// (as text) joined by && and ||, && binding tighter.
func evalIf(cond string, resolve func(ref) (string, error)) (bool, error) {
	toks, err := lexIf(cond)
	if err != nil {
		return false, fmt.Errorf("if %q: %w", cond, err)
	}
	p := &ifParser{toks: toks, resolve: resolve}
	v, err := p.or()
	if err == nil && p.pos < len(p.toks) {
		err = fmt.Errorf("unexpected '%s'", p.toks[p.pos].text)
	}
	if err != nil {
		return false, fmt.Errorf("if %q: %w", cond, err)
	}
	return v, nil
}

type ifParser struct {
	toks    []token
	pos     int
	resolve func(ref) (string, error)
}

func (p *ifParser) next(kind, text string) bool {
	if p.pos < len(p.toks) && p.toks[p.pos].kind == kind && (text == "" || p.toks[p.pos].text == text) {
		p.pos++
		return true
	}
	return false
}

func (p *ifParser) or() (bool, error) {
	v, err := p.and()
	for err == nil && p.next("op", "||") {
		var w bool
		w, err = p.and()
		v = v || w
	}
	return v, err
}

func (p *ifParser) and() (bool, error) {
	v, err := p.cmp()
	for err == nil && p.next("op", "&&") {
		var w bool
		w, err = p.cmp()
		v = v && w
	}
	return v, err
}

var errNeedComparison = errors.New("a condition compares two values with ==, !=, > or <")

func (p *ifParser) cmp() (bool, error) {
	a, err := p.operand()
	if err != nil {
		return false, err
	}
	if p.pos >= len(p.toks) || p.toks[p.pos].kind != "op" {
		return false, errNeedComparison
	}
	op := p.toks[p.pos].text
	if op == "&&" || op == "||" {
		return false, errNeedComparison
	}
	p.pos++
	b, err := p.operand()
	if err != nil {
		return false, err
	}
	switch op {
	case "==":
		return a == b, nil
	case "!=":
		return a != b, nil
	case ">":
		return a > b, nil
	}
	return a < b, nil
}

func (p *ifParser) operand() (string, error) {
	if p.pos >= len(p.toks) {
		return "", errors.New("the condition ends where a value is expected")
	}
	t := p.toks[p.pos]
	p.pos++
	switch t.kind {
	case "lit":
		return t.text, nil
	case "ref":
		return p.resolve(t.ref)
	}
	return "", fmt.Errorf("'%s' where a value is expected", t.text)
}
