package driver

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// DefaultRequestTimeout is config.request_timeout_secs's default (DRV-4).
const DefaultRequestTimeout = 300 * time.Second

// The values config.max_tokens_field takes (DRV-5).
const (
	MaxTokensField           = "max_tokens"
	MaxCompletionTokensField = "max_completion_tokens"
)

// Options are the keys of a driver block's `config:` mapping that drivers
// and the loop read (DRV-4, DRV-5, DRV-10). Other keys are left to the caller.
type Options struct {
	RequestTimeout      time.Duration // request_timeout_secs; default DefaultRequestTimeout
	MaxTokensField      string        // max_tokens_field (openai); default MaxTokensField
	ContextWindowTokens int64         // context_window_tokens; 0 = not declared
	MaxInputTokens      int64         // max_input_tokens; 0 = not declared
}

// OptionError is a bad config value; the manifest reports it as E-MAN-003
// under <driver block>.config.<Key> with Fault.
type OptionError struct {
	Key   string // e.g. "request_timeout_secs"
	Fault string // e.g. "must be greater than 0"
}

// Error returns "config.<key>: <fault>".
func (e *OptionError) Error() string { return "config." + e.Key + ": " + e.Fault }

// ParseOptions reads Options from a driver block's config mapping (nil = {}),
// with defaults. Integers must be whole numbers > 0; max_tokens_field one of
// max_tokens, max_completion_tokens.
func ParseOptions(config map[string]any) (Options, error) {
	o := Options{RequestTimeout: DefaultRequestTimeout, MaxTokensField: MaxTokensField}
	if v, ok := config["request_timeout_secs"]; ok && v != nil {
		n, err := positive("request_timeout_secs", v)
		if err != nil {
			return Options{}, err
		}
		if n > math.MaxInt64/int64(time.Second) {
			return Options{}, &OptionError{Key: "request_timeout_secs", Fault: "is too large"}
		}
		o.RequestTimeout = time.Duration(n) * time.Second
	}
	if v, ok := config["max_tokens_field"]; ok && v != nil {
		s, _ := v.(string)
		if s != MaxTokensField && s != MaxCompletionTokensField {
			return Options{}, &OptionError{Key: "max_tokens_field",
				Fault: fmt.Sprintf("'%v' is not one of %s, %s", v, MaxTokensField, MaxCompletionTokensField)}
		}
		o.MaxTokensField = s
	}
	for key, dst := range map[string]*int64{
		"context_window_tokens": &o.ContextWindowTokens,
		"max_input_tokens":      &o.MaxInputTokens,
	} {
		if v, ok := config[key]; ok && v != nil {
			n, err := positive(key, v)
			if err != nil {
				return Options{}, err
			}
			*dst = n
		}
	}
	return o, nil
}

// positive reads a whole number > 0 from a YAML- or JSON-decoded value.
func positive(key string, v any) (int64, error) {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case uint64:
		if x > math.MaxInt64 {
			return 0, &OptionError{Key: key, Fault: "is too large"}
		}
		n = int64(x)
	case float64:
		if x != math.Trunc(x) || x > math.MaxInt64 || x < math.MinInt64 {
			return 0, &OptionError{Key: key, Fault: fmt.Sprintf("'%v' is not a whole number", v)}
		}
		n = int64(x)
	case string:
		p, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return 0, &OptionError{Key: key, Fault: fmt.Sprintf("'%s' is not a whole number", x)}
		}
		n = p
	default:
		return 0, &OptionError{Key: key, Fault: fmt.Sprintf("'%v' is not a whole number", v)}
	}
	if n <= 0 {
		return 0, &OptionError{Key: key, Fault: "must be greater than 0"}
	}
	return n, nil
}
