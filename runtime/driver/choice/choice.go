// Package choice builds the driver serving one inference choice — the
// primary or an alternate (capsule.md DRV-2, §1.6) — from its driver block's
// values, so the session, `mur doctor` and tests need not know each kind's
// constructor.
//
// # Example
//
//	for _, c := range m.Inference.Choices() {
//		d, err := choice.Open(choice.Spec{
//			Kind: c.Kind, Endpoint: c.Endpoint, Script: m.ScriptPath(c), Config: c.Config,
//			APIKey: driver.Secret(getenv(c.APIKeyEnv)), Credential: c.APIKeyEnv,
//		})
//		…
//	}
package choice

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/anthropic"
	"github.com/murmur-go/mur/runtime/driver/openai"
	"github.com/murmur-go/mur/runtime/driver/scripted"
)

// Spec is one driver block, resolved.
type Spec struct {
	Kind       string         // "scripted", "openai" or "anthropic"
	Endpoint   string         // "" = the kind's default (DRV-5, DRV-6); not on scripted
	APIKey     driver.Secret  // the credential's value (DRV-3); "" when keyless
	Credential string         // the environment variable NAME, for E-RUN-027; "" when keyless
	Script     string         // scripted: the script's path, resolved against the manifest's directory
	Config     map[string]any // the block's config mapping (DRV-4, DRV-5, DRV-10)
	HTTPClient *http.Client   // nil = each HTTP driver's own
	// Sleep replaces the HTTP drivers' retry waits (tests); nil = real timers.
	Sleep  func(ctx context.Context, d time.Duration) error
	Logger *slog.Logger // nil = silent
}

// Open returns the driver for s. A scripted driver's script is loaded and
// validated now: E-RUN-009 when unreadable, E-MAN-003 when invalid (both
// *diag.Diagnostic). A bad config value is a *driver.OptionError; an unknown
// kind or an endpoint that is not an http(s) URL a plain error.
func Open(s Spec) (driver.Driver, error) {
	switch s.Kind {
	case scripted.Kind:
		script, err := scripted.Load(s.Script)
		if err != nil {
			return nil, err
		}
		return scripted.New(script), nil
	case openai.Kind, anthropic.Kind:
	default:
		return nil, fmt.Errorf("driver kind %q is not built into this mur", s.Kind)
	}
	opts, err := driver.ParseOptions(s.Config)
	if err != nil {
		return nil, err
	}
	cfg := driver.HTTPConfig{Endpoint: s.Endpoint, APIKey: s.APIKey, Credential: s.Credential,
		Options: opts, HTTPClient: s.HTTPClient, Sleep: s.Sleep, Logger: s.Logger}
	if s.Kind == openai.Kind {
		return openai.New(cfg)
	}
	return anthropic.New(cfg)
}
