package driver

import "log/slog"

// Secret is an API key resolved from the environment (DRV-3). It prints and
// logs as "[redacted]"; Reveal returns the value for the one header that
// carries it.
type Secret string

// String redacts the value.
func (s Secret) String() string { return "[redacted]" }

// GoString redacts the value under %#v.
func (s Secret) GoString() string { return `driver.Secret("[redacted]")` }

// LogValue redacts the value in slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// Reveal returns the value itself.
func (s Secret) Reveal() string { return string(s) }
