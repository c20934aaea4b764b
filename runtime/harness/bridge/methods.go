package bridge

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// versions are the protocol versions initialize negotiates (BRG-2): the
// client's when listed, else the first. The SDK's own list also holds
// 2026-07-28 and 2024-11-05, which BRG-2 does not.
var versions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// capabilities is initialize's result capabilities, exactly (BRG-2). The
// SDK's ToolCapabilities drops a false listChanged (omitempty).
const capabilities = `{"tools":{"listChanged":false}}`

// Fixed results (BRG-2, BRG-4).
var (
	resultResources = json.RawMessage(`{"resources":[]}`)
	resultTemplates = json.RawMessage(`{"resourceTemplates":[]}`)
	resultPrompts   = json.RawMessage(`{"prompts":[]}`)
)

// newMCP builds the SDK server: name mur, the narrowed versions, 32-hex
// session ids, and the middleware that answers the methods whose exact
// results BRG-2/3/5 fix.
func (s *Server) newMCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mur", Version: s.cfg.Version}, &mcp.ServerOptions{
		Logger:                    s.cfg.Logger,
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		GetSessionID:              newSessionID,
		SupportedProtocolVersions: versions,
	})
	srv.AddReceivingMiddleware(s.middleware)
	return srv
}

// raw is a result whose JSON is fixed bytes (mcp.ResultBase is the SDK's
// seam for custom results).
type raw struct {
	mcp.ResultBase
	json json.RawMessage
}

// MarshalJSON implements json.Marshaler.
func (r *raw) MarshalJSON() ([]byte, error) { return r.json, nil }

// middleware answers initialize's result shape, tools/list in declared
// order (the SDK sorts by name), tools/call through Dispatch, and the empty
// lists; the rest goes to the SDK.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize":
			res, err := next(ctx, method, req) // the SDK negotiates and keeps the session's state
			if err != nil {
				return nil, err
			}
			ir, ok := res.(*mcp.InitializeResult)
			if !ok {
				return res, nil
			}
			return initialized(ir.ProtocolVersion, s.cfg.Version)
		case "tools/list":
			return &raw{json: s.tools}, nil
		case "tools/call":
			cr, ok := req.(*mcp.CallToolRequest)
			if !ok || cr.Params == nil || cr.Params.Name == "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: textNameRequired}
			}
			return s.call(ctx, cr.Params)
		case "resources/list":
			return &raw{json: resultResources}, nil
		case "resources/templates/list":
			return &raw{json: resultTemplates}, nil
		case "prompts/list":
			return &raw{json: resultPrompts}, nil
		}
		return next(ctx, method, req)
	}
}

// initialized is initialize's result (BRG-2).
func initialized(version, murVersion string) (mcp.Result, error) {
	b, err := marshal(struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    json.RawMessage    `json:"capabilities"`
		ServerInfo      mcp.Implementation `json:"serverInfo"`
	}{version, json.RawMessage(capabilities), mcp.Implementation{Name: "mur", Version: murVersion}})
	if err != nil {
		return nil, err
	}
	return &raw{json: b}, nil
}

// call answers one tools/call (BRG-5…8): it takes its place in the queue at
// once, learns its turn, and is dispatched when the calls before it are
// answered.
func (s *Server) call(ctx context.Context, p *mcp.CallToolParamsRaw) (mcp.Result, error) {
	// The call arrives: in the run in progress, if any, and in the queue.
	gen, inRun := s.runs.current()
	place := s.queue.take()
	s.activity(+1)
	defer s.activity(-1)
	id, fromCodex := callID(p.Meta)
	c := Call{Name: p.Name, Arguments: p.Arguments, ToolCallID: id, Turn: -1}
	if len(c.Arguments) == 0 || string(c.Arguments) == "null" {
		c.Arguments = json.RawMessage("{}")
	}
	if err := place.wait(ctx, s.quit); err != nil {
		return nil, err
	}
	defer s.queue.release()
	if inRun {
		c.Turn = s.runs.attribute(ctx, s.quit, gen, keyOf(c, fromCodex), s.wait())
		if dctx, done, ok := s.runs.dispatching(ctx, gen); ok {
			defer done()
			return answered(s.cfg.Dispatch(dctx, c))
		}
	}
	// No run was in progress when the call arrived, or its run has ended.
	c.Refusal = RefusalNoRun
	return answered(s.cfg.Dispatch(ctx, c))
}

// answered is tools/call's result: one text block and isError, always
// present (BRG-5; the SDK's CallToolResult drops a false isError).
func answered(a Answer) (mcp.Result, error) {
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	b, err := marshal(struct {
		Content []text `json:"content"`
		IsError bool   `json:"isError"`
	}{[]text{{"text", a.Text}}, a.IsError})
	if err != nil {
		return nil, err
	}
	return &raw{json: b}, nil
}

// callID is the call's tool call id from _meta: claude's
// "claudecode/toolUseId", else codex's "callId" (BRG-6); fromCodex says
// which.
func callID(meta mcp.Meta) (id string, fromCodex bool) {
	if v, ok := meta["claudecode/toolUseId"].(string); ok && v != "" {
		return v, false
	}
	if v, ok := meta["callId"].(string); ok && v != "" {
		return v, true
	}
	return "", false
}
