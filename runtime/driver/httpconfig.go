package driver

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// HTTPConfig configures an HTTP driver, openai (DRV-5) or anthropic (DRV-6):
// the driver block's values resolved, and the seams tests replace. Only
// Endpoint's form is checked by the driver's New; the manifest has validated
// the rest (capsule.md §1.6).
type HTTPConfig struct {
	Endpoint   string       // base URL; "" = the driver's DefaultEndpoint
	APIKey     Secret       // the credential's value (DRV-3); "" = keyless: no key header is sent
	Credential string       // the environment variable NAME APIKey came from (E-RUN-027); "" when keyless
	Options    Options      // the driver block's config (ParseOptions); zero fields take defaults
	HTTPClient *http.Client // nil = a client of the driver's own
	// Sleep waits between retries (DRV-4) and returns ctx's error if it ends
	// first; nil = Sleep. Tests inject one that records the waits.
	Sleep  func(ctx context.Context, d time.Duration) error
	Now    func() time.Time // the clock for Retry-After dates; nil = time.Now
	Logger *slog.Logger     // retries at Warn; nil = silent
}

// Sleep waits d, or until ctx ends and then returns ctx's error: the
// cancellable wait of DRV-4's retries and DRV-7's delay_ms.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
