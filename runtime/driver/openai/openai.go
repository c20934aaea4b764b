// Package openai is the `openai` inference driver (capsule.md DRV-5): OpenAI
// Chat Completions as served by OpenAI, Ollama, vLLM and llama.cpp, with the
// retry policy of DRV-4. Package fake holds an in-process server of the same
// wire format for tests (DRV-9).
//
// # Example
//
//	opts, err := driver.ParseOptions(block.Config)
//	…
//	d, err := openai.New(openai.Config{
//		Endpoint:   "http://localhost:11434/v1",
//		APIKey:     driver.Secret(os.Getenv("OPENAI_API_KEY")), // "" when keyless
//		Credential: "OPENAI_API_KEY",
//		Options:    opts,
//	})
//	resp, err := d.Complete(ctx, req)
package openai

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/internal/httpcall"
)

// Kind is the driver block kind this package serves.
const Kind = "openai"

// DefaultEndpoint is the endpoint when the driver block names none (DRV-5).
const DefaultEndpoint = "https://api.openai.com/v1"

// Config configures a Driver. Only Endpoint's form is checked by New; the
// manifest has validated the rest (capsule.md §1.6).
type Config struct {
	Endpoint   string         // base URL; "" = DefaultEndpoint; requests go to <Endpoint>/chat/completions
	APIKey     driver.Secret  // sent as a bearer token; "" = keyless, no Authorization header
	Credential string         // the environment variable NAME APIKey came from (E-RUN-027); "" when keyless
	Options    driver.Options // the driver block's config (driver.ParseOptions); zero fields take defaults
	HTTPClient *http.Client   // nil = a client of the driver's own
	// Sleep waits between retries (DRV-4) and returns ctx's error if it ends
	// first; nil = real timers. Tests inject one that records the waits.
	Sleep  func(ctx context.Context, d time.Duration) error
	Now    func() time.Time // the clock for Retry-After dates; nil = time.Now
	Logger *slog.Logger     // retries at Warn; nil = silent
}

// Driver speaks Chat Completions. It is safe for concurrent use.
type Driver struct {
	url    string
	key    driver.Secret
	field  string
	caller *httpcall.Caller
}

var (
	_ driver.Driver  = (*Driver)(nil)
	_ driver.Encoder = (*Driver)(nil)
)

// New returns a driver for cfg, or an error if Endpoint is not an http(s) URL.
func New(cfg Config) (*Driver, error) {
	url, caller, err := httpcall.New(Kind, cfg.Endpoint, DefaultEndpoint, "/chat/completions", httpcall.Caller{
		Client: cfg.HTTPClient, Timeout: cfg.Options.RequestTimeout, Credential: cfg.Credential,
		Sleep: cfg.Sleep, Now: cfg.Now, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	field := cfg.Options.MaxTokensField
	if field == "" {
		field = driver.MaxTokensField
	}
	return &Driver{url: url, key: cfg.APIKey, field: field, caller: caller}, nil
}

// Kind returns "openai".
func (d *Driver) Kind() string { return Kind }

// Complete posts req to <endpoint>/chat/completions (DRV-5) and reads
// choices[0].message. Errors: *driver.CredentialError on 401,
// *driver.TransportError on another non-2xx (429/5xx after two retries),
// *driver.RequestError when no answer came, *driver.ResponseError when the
// answer is not a Chat Completions reply; ctx's error when ctx ends.
func (d *Driver) Complete(ctx context.Context, req *driver.Request) (*driver.Response, error) {
	body, err := d.Encode(req)
	if err != nil {
		return nil, fmt.Errorf("encode openai request: %w", err)
	}
	header := http.Header{}
	if d.key != "" {
		header.Set("Authorization", "Bearer "+d.key.Reveal())
	}
	return d.caller.Complete(ctx, d.url, header, body, decodeReply)
}
