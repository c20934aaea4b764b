package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestCauseAndReason checks LOOP-19's causes and exact reason texts.
func TestCauseAndReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		wantCause  string
		wantReason string
	}{
		{"LOOP-19 http status", &TransportError{Kind: "openai", Status: 400, Body: `{"error":"bad"}`},
			CauseDriverError, `openai endpoint answered HTTP 400: {"error":"bad"}`},
		{"LOOP-19 request failed", &RequestError{Kind: "anthropic", Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")},
			CauseDriverError, "anthropic request failed: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"LOOP-19 unreadable response", &ResponseError{Kind: "openai", Err: errors.New("unexpected end of JSON input")},
			CauseInvalidResponse, "openai response could not be read: unexpected end of JSON input"},
		{"DRV-4 credential", &CredentialError{Kind: "openai", Credential: "OPENAI_API_KEY", Status: 401},
			CauseCredentialRejected, "the provider rejected the inference credential OPENAI_API_KEY from the environment (HTTP 401); it is read once at launch"},
		{"DRV-7 credential none", &CredentialError{Kind: "scripted", Status: 401},
			CauseCredentialRejected, "the provider rejected the inference credential none from the environment (HTTP 401); it is read once at launch"},
		{"DRV-7 script", &ScriptError{Reason: "no script rule matches the task"},
			CauseDriverError, "no script rule matches the task"},
		{"wrapped", fmt.Errorf("turn 3: %w", &ScriptError{Reason: "script exhausted after 2 turns"}),
			CauseDriverError, "script exhausted after 2 turns"},
		{"internal", errors.New("boom"), CauseInternal, "boom"},
		{"canceled", context.Canceled, CauseInternal, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Cause(tt.err); got != tt.wantCause {
				t.Errorf("Cause(%v) = %q, want %q", tt.err, got, tt.wantCause)
			}
			if got := Reason(tt.err); got != tt.wantReason {
				t.Errorf("Reason(%v) = %q, want %q", tt.err, got, tt.wantReason)
			}
		})
	}
}

func TestSentinels(t *testing.T) {
	t.Parallel()
	if !errors.Is(&CredentialError{}, ErrCredentialRejected) {
		t.Error("CredentialError does not match ErrCredentialRejected")
	}
	if !errors.Is(&ResponseError{Err: errors.New("x")}, ErrInvalidResponse) {
		t.Error("ResponseError does not match ErrInvalidResponse")
	}
	if errors.Is(&TransportError{}, ErrInvalidResponse) || errors.Is(&TransportError{}, ErrCredentialRejected) {
		t.Error("TransportError matches a sentinel")
	}
	d := (&CredentialError{Credential: "K"}).Diagnostic()
	if d.Code != "E-RUN-027" || d.Hint != "restart the capsule with a valid K" {
		t.Errorf("Diagnostic() = %q %q", d.Code, d.Hint)
	}
}

// TestCutBody checks DRV-4's first 512 body bytes.
func TestCutBody(t *testing.T) {
	t.Parallel()
	short := "short body"
	if got := CutBody([]byte(short)); got != short {
		t.Errorf("CutBody(short) = %q", got)
	}
	long := strings.Repeat("a", 600)
	if got := CutBody([]byte(long)); got != long[:512] {
		t.Errorf("CutBody(600 a) has %d bytes, want 512", len(got))
	}
	// A 3-byte character straddling byte 512 is dropped whole.
	split := strings.Repeat("a", 511) + "€" + "tail"
	if got := CutBody([]byte(split)); got != strings.Repeat("a", 511) {
		t.Errorf("CutBody(split rune) = %d bytes %q…, want 511 a", len(got), got[len(got)-3:])
	}
}

// TestEstimates checks DRV-8's ceil(bytes/4).
func TestEstimates(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]int64{0: 0, 1: 1, 4: 1, 5: 2, 8: 2, 9: 3} {
		if got := EstimateTokens(n); got != want {
			t.Errorf("EstimateTokens(%d) = %d, want %d", n, got, want)
		}
	}
	r := &Response{
		Blocks:      []Block{TextBlock("hello"), ToolUseBlock("c1", "bash", []byte(`{"command":"ls"}`))},
		RequestBody: []byte("0123456789"),
	}
	if got := r.EstimatedOutputTokens(); got != EstimateTokens(5+16) {
		t.Errorf("EstimatedOutputTokens = %d, want %d", got, EstimateTokens(21))
	}
	if got := r.EstimatedInputTokens(); got != 3 {
		t.Errorf("EstimatedInputTokens = %d, want 3", got)
	}
}

type plain struct{}

func (plain) Kind() string { return "plain" }
func (plain) Complete(context.Context, *Request) (*Response, error) {
	return nil, errors.New("unused")
}

type encoding struct{ plain }

func (encoding) Encode(*Request) ([]byte, error) { return []byte("12345678"), nil }

func TestEstimateInput(t *testing.T) {
	t.Parallel()
	req := &Request{Model: "m", Messages: []Message{{Role: RoleUser, Blocks: []Block{TextBlock("hi")}}}}
	got, err := EstimateInput(encoding{}, req)
	if err != nil || got != 2 {
		t.Errorf("EstimateInput(encoder) = %d, %v, want 2", got, err)
	}
	got, err = EstimateInput(plain{}, req)
	if err != nil || got == 0 {
		t.Errorf("EstimateInput(plain) = %d, %v, want > 0", got, err)
	}
}

func TestInvalidToolArguments(t *testing.T) {
	t.Parallel()
	b := Block{Type: BlockToolUse, InputError: "unexpected end of JSON input"}
	if got, want := InvalidToolArguments(b), "invalid tool arguments: unexpected end of JSON input"; got != want {
		t.Errorf("InvalidToolArguments = %q, want %q", got, want)
	}
}

func TestSecretRedacted(t *testing.T) {
	t.Parallel()
	s := Secret("sk-live-123")
	for _, got := range []string{fmt.Sprint(s), fmt.Sprintf("%v %s %#v", s, s, s), s.LogValue().String()} {
		if strings.Contains(got, "sk-live") {
			t.Errorf("secret leaked: %q", got)
		}
	}
	if s.Reveal() != "sk-live-123" {
		t.Error("Reveal lost the value")
	}
}
