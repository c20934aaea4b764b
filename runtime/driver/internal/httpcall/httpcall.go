// Package httpcall posts one inference request for the HTTP drivers with
// DRV-4's policy: a per-attempt timeout, 429/5xx and connection errors retried
// twice (1 s, 2 s, Retry-After honoured up to 30 s), 401 a credential
// rejection at once, any other non-2xx a transport error.
package httpcall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/murmur-go/mur/runtime/driver"
)

// Backoff holds DRV-4's waits before the second and third attempts.
var Backoff = [...]time.Duration{time.Second, 2 * time.Second}

// MaxRetryAfter caps a Retry-After wait (DRV-4).
const MaxRetryAfter = 30 * time.Second

// MaxBody caps a success body; a longer one is an invalid response.
const MaxBody = 64 << 20

// Caller posts requests to one endpoint. The zero value is not usable: Kind,
// Client and Timeout must be set. Safe for concurrent use.
type Caller struct {
	Kind       string        // "openai", "anthropic": the errors' <kind>
	Client     *http.Client  // sends every attempt
	Timeout    time.Duration // per attempt, reading the body included
	Credential string        // env var NAME for a CredentialError
	// Rule is the driver's endpoint rule, which a 404's TransportError
	// names (what the endpoint is, where requests go).
	Rule string
	// Sleep waits between attempts and returns ctx's error if it ends first;
	// nil = a real timer. Tests inject one that records the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now reads the clock for a Retry-After HTTP date; nil = time.Now.
	Now    func() time.Time
	Logger *slog.Logger // nil = no logging
}

// Post sends body to url with header and returns the success body, or one of
// driver's typed errors (*CredentialError, *TransportError, *RequestError),
// or ctx's error when ctx ends first. onRetry, when not nil, is told of each
// retry before its wait.
func (c *Caller) Post(ctx context.Context, url string, header http.Header, body []byte, onRetry func(driver.Retry)) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		res := c.once(ctx, url, header, body)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var failure error
		cause := driver.RetryConnection
		switch {
		case res.err != nil && res.final:
			return nil, res.err
		case res.err != nil:
			failure = res.err
		case res.status >= 200 && res.status < 300:
			return res.body, nil
		case res.status == http.StatusUnauthorized:
			return nil, &driver.CredentialError{Kind: c.Kind, Credential: c.Credential, Status: res.status}
		case res.status == http.StatusTooManyRequests || res.status >= 500:
			failure = &driver.TransportError{Kind: c.Kind, Status: res.status, Body: driver.CutBody(res.body)}
			cause = driver.RetryServerError
			if res.status == http.StatusTooManyRequests {
				cause = driver.RetryRateLimited
			}
		default:
			return nil, &driver.TransportError{Kind: c.Kind, Status: res.status, Body: driver.CutBody(res.body), URL: url, Rule: c.Rule}
		}
		if attempt >= len(Backoff) {
			return nil, failure
		}
		wait := Backoff[attempt]
		if d, ok := c.retryAfter(res.header); ok {
			wait = d
		}
		if c.Logger != nil {
			c.Logger.Warn("inference request retried", "driver", c.Kind, "attempt", attempt+1, "wait", wait, "err", failure)
		}
		if onRetry != nil {
			onRetry(driver.Retry{Kind: c.Kind, Attempt: attempt + 1, Cause: cause, Status: res.status, Wait: wait, Err: failure})
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// result is one attempt's outcome. err is a *driver.RequestError; final
// marks one that is not retried.
type result struct {
	status int
	header http.Header
	body   []byte
	err    error
	final  bool
}

func (c *Caller) once(ctx context.Context, url string, header http.Header, body []byte) result {
	actx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return result{err: &driver.RequestError{Kind: c.Kind, Err: err}, final: true}
	}
	req.Header = header.Clone()
	resp, err := c.Client.Do(req)
	if err != nil {
		return c.transportFailure(ctx, actx, err)
	}
	defer resp.Body.Close()
	limit := int64(MaxBody)
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		limit = driver.MaxErrorBody // DRV-4 keeps no more
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return c.transportFailure(ctx, actx, err)
	}
	if int64(len(data)) > limit && limit == MaxBody {
		return result{err: &driver.ResponseError{Kind: c.Kind, Err: fmt.Errorf("the body exceeds %d bytes", MaxBody)}, final: true}
	}
	return result{status: resp.StatusCode, header: resp.Header, body: data}
}

// transportFailure classifies an attempt that got no full answer: a
// per-attempt timeout is final (retrying a silent endpoint would triple the
// wait); anything else is a connection error, retried.
func (c *Caller) transportFailure(ctx, actx context.Context, err error) result {
	if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return result{err: &driver.RequestError{Kind: c.Kind,
			Err: fmt.Errorf("no answer within %s (config.request_timeout_secs)", seconds(c.Timeout))}, final: true}
	}
	return result{err: &driver.RequestError{Kind: c.Kind, Err: err}}
}

func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// retryAfter reads Retry-After as seconds or an HTTP date, capped at
// MaxRetryAfter.
func (c *Caller) retryAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		d = MaxRetryAfter
		if n < int64(MaxRetryAfter/time.Second) {
			d = time.Duration(n) * time.Second
		}
	} else if t, err := http.ParseTime(v); err == nil {
		now := time.Now
		if c.Now != nil {
			now = c.Now
		}
		d = max(t.Sub(now()), 0)
	} else {
		return 0, false
	}
	return min(d, MaxRetryAfter), true
}

func (c *Caller) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	return driver.Sleep(ctx, d)
}
