package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/murmur-go/mur/runtime/tool"
)

// Path is the one path the bridge serves (BRG-1).
const Path = "/mcp"

// MaxBody bounds a request body (BRG-1): larger is 413.
const MaxBody = 8 << 20

// attributionWait is how long a call waits for the event stream to name its
// tool call id before it takes the newest turn (BRG-6).
const attributionWait = 5 * time.Second

// Config is what Start needs.
type Config struct {
	// Tools is session_start.tools_declared with each tool's description
	// and input schema, in that order (tool.Registry.Inventory; BRG-3).
	// An empty InputSchema is tool.EmptySchema.
	Tools []tool.Spec
	// Version is mur's version, serverInfo.version (BRG-2). Required.
	Version string
	// Dispatch answers one call (BRG-5). The bridge calls it one call at a
	// time, in arrival order. Required.
	Dispatch Dispatcher
	// Activity, if set, is called with the number of tools/call requests in
	// flight after each one arrives (it has then its place in the queue)
	// and after each is answered (BRG-8). It runs synchronously, in order,
	// and must not block or call the Server.
	Activity func(inFlight int)
	// Logger, if set, hears protocol faults at debug level. The token never
	// reaches it.
	Logger *slog.Logger
}

// Dispatcher answers a bridged call. ctx ends when the run ends (EndRun),
// the client cancels the request or the server closes; the dispatcher adds
// its task's own context.
type Dispatcher func(ctx context.Context, c Call) Answer

// Call is one tools/call.
type Call struct {
	// Name is params.name: the bridge's own tool name, as every record
	// carries it (BRG-3). It may name no tool (LOOP-9 is the dispatcher's).
	Name string
	// Arguments is params.arguments; {} when absent or null.
	Arguments json.RawMessage
	// ToolCallID is claude's _meta["claudecode/toolUseId"] or codex's
	// _meta.callId; "" when the call carries neither (BRG-6).
	ToolCallID string
	// Turn is the turn the call belongs to, as Turn and ToolUse numbered
	// it; -1 when no run was in progress at its arrival or the run opened
	// no turn (BRG-6).
	Turn int
	// Refusal, when set, is BRG-7's text for a call that arrived while no
	// run was in progress, or whose run ended before its turn to be
	// dispatched came: run nothing, write only tool_call, answer it
	// unfenced with IsError.
	Refusal string
}

// Answer is what the harness gets back: the http loop's tool_result text
// and whether it is an error (BRG-5).
type Answer struct {
	Text    string
	IsError bool
}

// Server is a running bridge. Its methods are safe for concurrent use.
type Server struct {
	cfg     Config
	token   Token
	url     string
	tools   json.RawMessage // the tools/list result, built once (BRG-3)
	mcp     *mcp.Server
	sdk     http.Handler // the SDK's streamable handler, behind front (http.go)
	http    *http.Server
	served  chan struct{} // closed when Serve returns
	quit    chan struct{} // closed by Close: every wait ends
	closing sync.Once

	queue queue // one call at a time, in arrival order (queue.go)
	runs  runs  // the run in progress and its turns (run.go)

	actMu    sync.Mutex // orders Activity calls
	inFlight int

	attrWait time.Duration // BRG-6's wait: attributionWait, shorter in tests
}

// wait is BRG-6's attribution wait.
func (s *Server) wait() time.Duration { return s.attrWait }

// Start mints the token, listens on 127.0.0.1:<OS port> and serves until
// Close.
func Start(cfg Config) (*Server, error) { return start(cfg, attributionWait) }

func start(cfg Config, attrWait time.Duration) (*Server, error) {
	if cfg.Dispatch == nil {
		return nil, errors.New("bridge: Config.Dispatch is required")
	}
	if cfg.Version == "" {
		return nil, errors.New("bridge: Config.Version is required")
	}
	tools, err := toolsResult(cfg.Tools)
	if err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bridge: listen: %w", err)
	}
	s := &Server{
		cfg:    cfg,
		token:  newToken(),
		url:    "http://" + ln.Addr().String() + Path,
		tools:  tools,
		served: make(chan struct{}),
		quit:   make(chan struct{}),

		attrWait: attrWait,
	}
	s.runs.init()
	s.mcp = s.newMCP()
	s.sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{JSONResponse: true, Logger: cfg.Logger, MaxRequestBodyBytes: MaxBody})
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug)}
	go func() {
		defer close(s.served)
		_ = s.http.Serve(ln) // ends with http.ErrServerClosed at Close
	}()
	return s, nil
}

// URL is the bridge's address, http://127.0.0.1:<port>/mcp.
func (s *Server) URL() string { return s.url }

// Token is the session's bearer token.
func (s *Server) Token() Token { return s.token }

// ClaudeConfig is PROC-6's <H>/mcp.json, byte for byte. It holds the token:
// write it 0600.
func (s *Server) ClaudeConfig() []byte {
	type server struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Timeout int64             `json:"timeout"`
	}
	type config struct {
		MCPServers map[string]server `json:"mcpServers"`
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(config{MCPServers: map[string]server{"mur": {
		Type: "http", URL: s.url, Headers: map[string]string{"Authorization": "Bearer " + s.token.Reveal()},
		Timeout: 2147483647, // the largest JS timer: the CLI never ends a long call itself (PROC-6)
	}}})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Close ends the run in progress (its dispatch context is cancelled) and
// every MCP session, which waits for the calls in flight to be answered (as
// EndRun does), then stops the listener and waits for the other requests in
// flight, at most until ctx ends, then drops them. Calling it again waits
// for the first.
func (s *Server) Close(ctx context.Context) error {
	s.closing.Do(func() {
		close(s.quit)
		s.runs.end()
		s.endSessions()
	})
	err := s.http.Shutdown(ctx)
	if err != nil {
		_ = s.http.Close()
	}
	<-s.served
	return err
}

// endSessions closes every MCP session the SDK holds.
func (s *Server) endSessions() {
	for ss := range s.mcp.Sessions() {
		_ = ss.Close()
	}
}

// activity reports a change of the calls in flight (BRG-8).
func (s *Server) activity(delta int) {
	s.actMu.Lock()
	defer s.actMu.Unlock()
	s.inFlight += delta
	if s.cfg.Activity != nil {
		s.cfg.Activity(s.inFlight)
	}
}

// toolsResult builds tools/list's result: each tool's name, description and
// compact input schema, in order (BRG-3).
func toolsResult(specs []tool.Spec) (json.RawMessage, error) {
	type entry struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	out := struct {
		Tools []entry `json:"tools"`
	}{Tools: make([]entry, 0, len(specs))}
	for _, sp := range specs {
		schema := []byte(tool.EmptySchema)
		if len(bytes.TrimSpace(sp.InputSchema)) > 0 {
			var b bytes.Buffer
			if err := json.Compact(&b, sp.InputSchema); err != nil {
				return nil, fmt.Errorf("bridge: tool %s: input schema: %w", sp.Name, err)
			}
			schema = b.Bytes()
		}
		out.Tools = append(out.Tools, entry{Name: sp.Name, Description: sp.Description, InputSchema: schema})
	}
	return marshal(out)
}

// marshal is json.Marshal without HTML escaping: tool texts carry <, > and &.
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
