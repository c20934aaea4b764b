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
	"net/http"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/internal/httpcall"
)

// Kind is the driver block kind this package serves.
const Kind = "openai"

// EndpointRule is DRV-5's endpoint rule, as a 404's reason names it: the
// same base URL the OpenAI SDKs take (manifest.EndpointProblemFor refuses a
// path this driver adds itself).
const EndpointRule = "endpoint is the base URL the OpenAI SDK takes, such as https://api.openai.com/v1, or http://localhost:11434/v1 for Ollama, and requests go to <endpoint>/chat/completions"

// DefaultEndpoint is the endpoint when the driver block names none (DRV-5).
const DefaultEndpoint = "https://api.openai.com/v1"

// Config configures a Driver: requests go to <Endpoint>/chat/completions,
// the key as a bearer token; Options.MaxTokensField names the output cap.
type Config = driver.HTTPConfig

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
	url, caller, err := httpcall.New(Kind, DefaultEndpoint, "/chat/completions", cfg)
	if err != nil {
		return nil, err
	}
	caller.Rule = EndpointRule // a 404 names it
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
	return d.caller.Complete(ctx, d.url, header, body, req.OnRetry, decodeReply)
}
