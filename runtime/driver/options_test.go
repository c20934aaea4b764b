package driver

import (
	"errors"
	"testing"
	"time"
)

// TestParseOptions covers DRV-4's request_timeout_secs, DRV-5's
// max_tokens_field and DRV-10's token limits.
func TestParseOptions(t *testing.T) {
	t.Parallel()
	o, err := ParseOptions(nil)
	if err != nil || o.RequestTimeout != 300*time.Second || o.MaxTokensField != "max_tokens" {
		t.Fatalf("ParseOptions(nil) = %+v, %v", o, err)
	}
	o, err = ParseOptions(map[string]any{
		"request_timeout_secs": 12, "max_tokens_field": "max_completion_tokens",
		"context_window_tokens": float64(128000), "max_input_tokens": int64(100000), "other": "kept out",
	})
	if err != nil || o.RequestTimeout != 12*time.Second || o.MaxTokensField != "max_completion_tokens" ||
		o.ContextWindowTokens != 128000 || o.MaxInputTokens != 100000 {
		t.Fatalf("ParseOptions(all) = %+v, %v", o, err)
	}
	bad := []struct {
		name string
		cfg  map[string]any
		want string
	}{
		{"zero timeout", map[string]any{"request_timeout_secs": 0}, "config.request_timeout_secs: must be greater than 0"},
		{"negative", map[string]any{"max_input_tokens": -3}, "config.max_input_tokens: must be greater than 0"},
		{"fraction", map[string]any{"request_timeout_secs": 1.5}, "config.request_timeout_secs: '1.5' is not a whole number"},
		{"bool", map[string]any{"context_window_tokens": true}, "config.context_window_tokens: 'true' is not a whole number"},
		{"field", map[string]any{"max_tokens_field": "tokens"}, "config.max_tokens_field: 'tokens' is not one of max_tokens, max_completion_tokens"},
	}
	for _, tt := range bad {
		_, err := ParseOptions(tt.cfg)
		var oe *OptionError
		if !errors.As(err, &oe) || err.Error() != tt.want {
			t.Errorf("%s: ParseOptions error = %v, want %q", tt.name, err, tt.want)
		}
	}
}
