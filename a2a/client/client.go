package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/murmur-go/mur/a2a"
)

// traceContext writes W3C trace context headers (OTEL-1).
var traceContext = propagation.TraceContext{}

// SetTraceContext sets ctx's W3C trace context (traceparent, and tracestate
// when it has one) on h, as every request of a Client carries it (OTEL-1),
// for the few requests to a door that are not JSON-RPC calls (a peer-file
// GET). It sets nothing when ctx holds no valid span context.
func SetTraceContext(ctx context.Context, h http.Header) {
	traceContext.Inject(ctx, propagation.HeaderCarrier(h))
}

// DefaultMaxResponseBytes bounds an answer's body, and each SSE event, when
// Config.MaxResponseBytes is 0.
const DefaultMaxResponseBytes = 16 << 20

// Config configures a Client.
type Config struct {
	// BaseURL is the door's URL, e.g. "http://127.0.0.1:41873" (door.md
	// DOOR-1); required, http or https, a trailing "/" is dropped.
	BaseURL string
	// Token is sent as "Authorization: Bearer <Token>" when non-empty: a door
	// token or a formation token. It is never logged (see LogValue).
	Token string
	// HTTPClient sends the requests; nil uses a client with no overall
	// timeout, since streams and blocking sends last as long as their task.
	HTTPClient *http.Client
	// RequestTimeout bounds each request until its whole answer is read; for a
	// stream, until the response headers arrive. 0 means no bound beyond the
	// context. WithTimeout overrides it per call.
	RequestTimeout time.Duration
	// MaxResponseBytes bounds a response body and each SSE event; 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
}

// LogValue renders the config with its token redacted.
func (c Config) LogValue() slog.Value {
	tok := ""
	if c.Token != "" {
		tok = "[redacted]"
	}
	return slog.GroupValue(slog.String("base_url", c.BaseURL), slog.String("token", tok),
		slog.Duration("request_timeout", c.RequestTimeout))
}

// Client calls one door. It is safe for concurrent use.
type Client struct {
	base    string // BaseURL without a trailing "/"
	token   string
	hc      *http.Client
	timeout time.Duration
	max     int64
	nextID  atomic.Int64 // JSON-RPC ids: 1, 2, … unique per Client
}

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("client base URL %q: %w", cfg.BaseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("client base URL %q: want http://host:port", cfg.BaseURL)
	}
	if cfg.RequestTimeout < 0 || cfg.MaxResponseBytes < 0 {
		return nil, errors.New("client config: RequestTimeout and MaxResponseBytes must not be negative")
	}
	c := &Client{
		base:    strings.TrimRight(cfg.BaseURL, "/"),
		token:   cfg.Token,
		hc:      cfg.HTTPClient,
		timeout: cfg.RequestTimeout,
		max:     cfg.MaxResponseBytes,
	}
	if c.hc == nil {
		c.hc = &http.Client{}
	}
	if c.max == 0 {
		c.max = DefaultMaxResponseBytes
	}
	return c, nil
}

// BaseURL returns the door URL the client calls, without a trailing "/".
func (c *Client) BaseURL() string { return c.base }

// CallOption adjusts one call.
type CallOption func(*callConfig)

type callConfig struct {
	header  http.Header
	timeout time.Duration
}

// WithHeader adds a request header to this call (set, replacing any earlier value).
func WithHeader(name, value string) CallOption {
	return func(cc *callConfig) { cc.header.Set(name, value) }
}

// WithTaskOrigin sends x-murmur-task-origin and, when trust is non-empty,
// x-murmur-task-trust (door.md PEER-3, PEER-4; tools.md CALL-3).
func WithTaskOrigin(origin a2a.Origin, trust a2a.Trust) CallOption {
	return func(cc *callConfig) {
		cc.header.Set(a2a.HeaderTaskOrigin, string(origin))
		if trust != "" {
			cc.header.Set(a2a.HeaderTaskTrust, string(trust))
		}
	}
}

// WithTimeout replaces Config.RequestTimeout for this call; 0 means none.
func WithTimeout(d time.Duration) CallOption {
	return func(cc *callConfig) { cc.timeout = d }
}

func (c *Client) callConfig(opts []CallOption) *callConfig {
	cc := &callConfig{header: http.Header{}, timeout: c.timeout}
	for _, o := range opts {
		o(cc)
	}
	return cc
}

// newRequest builds a request to path with the headers every call carries.
func (c *Client) newRequest(ctx context.Context, method, path string, body []byte, accept string, cc *callConfig) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set(a2a.HeaderVersion, a2a.ProtocolVersion)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	// OTEL-1: the calling span's W3C trace context (traceparent, and
	// tracestate when it has one), so the door parents its task on it; nothing
	// when ctx holds no valid span context.
	SetTraceContext(ctx, req.Header)
	for k, vs := range cc.header {
		req.Header[k] = vs
	}
	return req, nil
}

// noAnswer classifies a transport failure: a caller that gave up gets its
// context's error; everything else is a *NoAnswerError.
func noAnswer(parent, reqCtx context.Context, op string, err error) error {
	if pe := parent.Err(); pe != nil && !errors.Is(pe, context.DeadlineExceeded) {
		if cause := context.Cause(parent); cause != pe {
			return fmt.Errorf("%s: %w: %w", op, pe, cause)
		}
		return fmt.Errorf("%s: %w", op, pe)
	}
	if errors.Is(context.Cause(reqCtx), errRequestTimeout) {
		err = errRequestTimeout
	}
	return &NoAnswerError{Method: op, Err: err}
}

// withTimeout bounds ctx by d when d > 0, with errRequestTimeout as the cause.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, errRequestTimeout)
}

// readBounded reads r up to max bytes; more is ErrResponseTooLarge.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > max {
		return b[:max], ErrResponseTooLarge
	}
	return b, nil
}

// Card fetches the public Agent Card from /.well-known/agent-card.json (door.md CARD-1).
func (c *Client) Card(ctx context.Context, opts ...CallOption) (*a2a.AgentCard, error) {
	var card a2a.AgentCard
	if err := c.get(ctx, a2a.WellKnownCardPath, &card, opts); err != nil {
		return nil, err
	}
	return &card, nil
}

// get GETs path and decodes a 200 JSON answer into v.
func (c *Client) get(ctx context.Context, path string, v any, opts []CallOption) error {
	cc := c.callConfig(opts)
	op := "GET " + path
	rctx, cancel := withTimeout(ctx, cc.timeout)
	defer cancel()
	req, err := c.newRequest(rctx, http.MethodGet, path, nil, "application/json", cc)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return noAnswer(ctx, rctx, op, err)
	}
	defer resp.Body.Close()
	body, err := readBounded(resp.Body, c.max)
	if err != nil && !errors.Is(err, ErrResponseTooLarge) {
		return noAnswer(ctx, rctx, op, err)
	}
	if resp.StatusCode != http.StatusOK {
		return newHTTPError(resp, body)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w: %v", op, ErrBadResponse, err)
	}
	return nil
}

// Call sends one JSON-RPC request and decodes its result into result (nil
// discards it; a *json.RawMessage keeps it raw). params nil sends no params.
// The typed methods are built on it; use it for methods they lack.
func (c *Client) Call(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	cc := c.callConfig(opts)
	id := c.nextID.Add(1)
	body, err := encodeRequest(id, method, params)
	if err != nil {
		return err
	}
	rctx, cancel := withTimeout(ctx, cc.timeout)
	defer cancel()
	req, err := c.newRequest(rctx, http.MethodPost, "/", body, "application/json", cc)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return noAnswer(ctx, rctx, method, err)
	}
	defer resp.Body.Close()
	b, err := readBounded(resp.Body, c.max)
	if err != nil && !errors.Is(err, ErrResponseTooLarge) {
		return noAnswer(ctx, rctx, method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return newHTTPError(resp, b)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	raw, err := decodeResponse(id, b)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return decodeResult(method, raw, result)
}

// decodeResult decodes a result into v; a null result is a bad response.
func decodeResult(method string, raw json.RawMessage, v any) error {
	if v == nil {
		return nil
	}
	if rm, ok := v.(*json.RawMessage); ok {
		*rm = raw
		return nil
	}
	if string(raw) == "null" {
		return fmt.Errorf("%s: %w: result is null", method, ErrBadResponse)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w: result: %v", method, ErrBadResponse, err)
	}
	return nil
}

type wireRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

func encodeRequest(id int64, method string, params any) ([]byte, error) {
	b, err := json.Marshal(wireRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("%s: encode params: %w", method, err)
	}
	return b, nil
}

type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// decodeResponse checks b is a JSON-RPC 2.0 response to request id and
// returns its raw result, or its error as an *a2a.Error.
func decodeResponse(id int64, b []byte) (json.RawMessage, error) {
	var r wireResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	if r.JSONRPC != "2.0" {
		return nil, fmt.Errorf("%w: jsonrpc is %q, want \"2.0\"", ErrBadResponse, r.JSONRPC)
	}
	if r.Error != nil && len(r.Result) > 0 {
		return nil, fmt.Errorf("%w: both result and error are set", ErrBadResponse)
	}
	if r.Error != nil {
		// An error's id may be null when the door could not read ours (-32700).
		if got := string(bytes.TrimSpace(r.ID)); got != strconv.FormatInt(id, 10) && got != "null" {
			return nil, fmt.Errorf("%w: id %s, want %d", ErrBadResponse, got, id)
		}
		return nil, a2a.ErrorFromWire(r.Error.Code, r.Error.Message, r.Error.Data)
	}
	if got := string(bytes.TrimSpace(r.ID)); got != strconv.FormatInt(id, 10) {
		return nil, fmt.Errorf("%w: id %s, want %d", ErrBadResponse, got, id)
	}
	if len(r.Result) == 0 {
		return nil, fmt.Errorf("%w: neither result nor error is set", ErrBadResponse)
	}
	return r.Result, nil
}
