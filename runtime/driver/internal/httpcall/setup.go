package httpcall

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/murmur-go/mur/runtime/driver"
)

// New sets up one HTTP driver of kind from cfg: it returns the URL its
// requests go to — cfg.Endpoint ("" = def) without a trailing '/', then
// path — and a Caller with DRV-4's defaults: a request timeout <= 0 is
// driver.DefaultRequestTimeout, a nil HTTPClient a client of the driver's
// own. It fails when the endpoint is not an http(s) URL.
func New(kind, def, path string, cfg driver.HTTPConfig) (string, *Caller, error) {
	c := Caller{Client: cfg.HTTPClient, Timeout: cfg.Options.RequestTimeout, Credential: cfg.Credential,
		Sleep: cfg.Sleep, Now: cfg.Now, Logger: cfg.Logger}
	endpoint := cfg.Endpoint
	if endpoint == "" {
		endpoint = def
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", nil, fmt.Errorf("%s endpoint %q is not an http(s) URL", kind, endpoint)
	}
	c.Kind = kind
	if c.Timeout <= 0 {
		c.Timeout = driver.DefaultRequestTimeout
	}
	if c.Client == nil {
		c.Client = &http.Client{}
	}
	return strings.TrimRight(endpoint, "/") + path, &c, nil
}

// Complete posts body to url as JSON (Content-Type and Accept
// application/json are added to header) and decodes the success body with
// decode into a response carrying RawBody and RequestBody; onRetry (nil =
// none) hears of each retry. Errors: Post's, or a *driver.ResponseError when
// decode fails.
func (c *Caller) Complete(ctx context.Context, url string, header http.Header, body []byte, onRetry func(driver.Retry),
	decode func(raw []byte) (*driver.Response, error)) (*driver.Response, error) {
	header.Set("Content-Type", "application/json")
	header.Set("Accept", "application/json")
	raw, err := c.Post(ctx, url, header, body, onRetry)
	if err != nil {
		return nil, err
	}
	resp, err := decode(raw)
	if err != nil {
		return nil, &driver.ResponseError{Kind: c.Kind, Err: err}
	}
	resp.RawBody = raw
	resp.RequestBody = body
	return resp, nil
}
