// Package anthropic is the `anthropic` inference driver (capsule.md DRV-6):
// the Anthropic Messages API, with the retry policy of DRV-4. Package fake
// holds an in-process server of the same wire format for tests (DRV-9).
//
// # Example
//
//	opts, err := driver.ParseOptions(block.Config)
//	…
//	d, err := anthropic.New(anthropic.Config{
//		APIKey:     driver.Secret(os.Getenv("ANTHROPIC_API_KEY")),
//		Credential: "ANTHROPIC_API_KEY",
//		Options:    opts,
//	})
//	resp, err := d.Complete(ctx, req)
package anthropic

import (
	"context"
	"fmt"
	"net/http"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/internal/httpcall"
)

// Kind is the driver block kind this package serves.
const Kind = "anthropic"

// EndpointRule is DRV-6's endpoint rule, as a 404's reason names it: the
// same base URL the Anthropic SDKs take, without /v1
// (manifest.EndpointProblemFor refuses a path this driver adds itself).
const EndpointRule = "endpoint is the base URL the Anthropic SDK takes, such as https://api.anthropic.com, without /v1, and requests go to <endpoint>/v1/messages"

// DefaultEndpoint is the endpoint when the driver block names none (DRV-6).
const DefaultEndpoint = "https://api.anthropic.com"

// Version is the anthropic-version header every request carries (DRV-6).
const Version = "2023-06-01"

// Config configures a Driver: requests go to <Endpoint>/v1/messages, the
// key as x-api-key.
type Config = driver.HTTPConfig

// Driver speaks the Messages API. It is safe for concurrent use.
type Driver struct {
	url    string
	key    driver.Secret
	caller *httpcall.Caller
}

var (
	_ driver.Driver  = (*Driver)(nil)
	_ driver.Encoder = (*Driver)(nil)
)

// New returns a driver for cfg, or an error if Endpoint is not an http(s) URL.
func New(cfg Config) (*Driver, error) {
	url, caller, err := httpcall.New(Kind, DefaultEndpoint, "/v1/messages", cfg)
	if err != nil {
		return nil, err
	}
	caller.Rule = EndpointRule // a 404 names it
	return &Driver{url: url, key: cfg.APIKey, caller: caller}, nil
}

// Kind returns "anthropic".
func (d *Driver) Kind() string { return Kind }

// Complete posts req to <endpoint>/v1/messages (DRV-6) and reads the reply's
// content blocks. Errors: *driver.CredentialError on 401,
// *driver.TransportError on another non-2xx (429/5xx after two retries),
// *driver.RequestError when no answer came, *driver.ResponseError when the
// answer is not a Messages reply; ctx's error when ctx ends.
func (d *Driver) Complete(ctx context.Context, req *driver.Request) (*driver.Response, error) {
	body, err := d.Encode(req)
	if err != nil {
		return nil, fmt.Errorf("encode anthropic request: %w", err)
	}
	header := http.Header{}
	header.Set("anthropic-version", Version)
	if d.key != "" {
		header.Set("x-api-key", d.key.Reveal())
	}
	return d.caller.Complete(ctx, d.url, header, body, req.OnRetry, decodeReply)
}
