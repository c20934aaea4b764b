package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
)

// ProxyCommand is the hidden mur command a harness starts as its stdio MCP
// server (codex, PROC-7): `mur __mcp-proxy <file>`, file being the one
// ProxyConfig wrote.
const ProxyCommand = "__mcp-proxy"

// proxyFile is what ProxyConfig writes and Proxy reads.
type proxyFile struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// ProxyConfig is the stdio proxy's file (PROC-7, PROC-8): the bridge's URL
// and its bearer. It holds the token: write it 0600 where only the
// harness can read it.
func (s *Server) ProxyConfig() []byte {
	b, _ := json.Marshal(proxyFile{URL: s.url, Token: s.token.Reveal()})
	return append(b, '\n')
}

// maxLine bounds one stdio message: the bridge refuses a body over MaxBody
// anyway (413).
const maxLine = MaxBody + 1<<10

// Proxy serves MCP's stdio transport on in and out for a harness that
// starts it as its MCP server, forwarding every message to the bridge the
// file at path names, with its bearer, and each JSON answer back as one
// line. The bearer is read from the file, never from argv or the
// environment. initialize and notifications are forwarded in order, each
// before the next line is read; tools/call in arrival order, one at a
// time (the bridge runs one at a time anyway, BRG-5, and attributes a
// codex call by its order, BRG-6); any other request at once. A request
// the bridge does not answer with JSON gets a JSON-RPC error naming the
// HTTP status. At EOF on in, Proxy waits for the answers in flight, ends
// the MCP session (DELETE) and returns nil; a file it cannot read or a
// line over the bound is an error.
func Proxy(ctx context.Context, path string, in io.Reader, out io.Writer) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var f proxyFile
	if err := json.Unmarshal(b, &f); err != nil || f.URL == "" || f.Token == "" {
		return fmt.Errorf("%s: not a bridge proxy file", path)
	}
	p := &proxy{f: f, out: out, client: &http.Client{}}
	calls := make(chan []byte, 16)
	var wg sync.WaitGroup
	wg.Go(func() {
		for msg := range calls {
			p.forward(ctx, msg)
		}
	})
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		msg := bytes.Clone(line)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(msg, &m)
		switch {
		case m.ID == nil || m.Method == "initialize":
			p.forward(ctx, msg)
		case m.Method == "tools/call":
			calls <- msg
		default:
			wg.Go(func() { p.forward(ctx, msg) })
		}
	}
	close(calls)
	wg.Wait()
	p.end(ctx)
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	return nil
}

// proxy is one Proxy's connection to the bridge.
type proxy struct {
	f      proxyFile
	client *http.Client

	mu      sync.Mutex // guards out and the session
	out     io.Writer
	session string // Mcp-Session-Id, from initialize's answer
	version string // the negotiated protocol version
}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorBody    `json:"error"`
}

type rpcErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// forward posts msg and writes the bridge's answer, or an error answer
// for a request the bridge did not answer with JSON.
func (p *proxy) forward(ctx context.Context, msg []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(msg, &m)
	answer, err := p.post(ctx, msg, m.Method == "initialize")
	switch {
	case err != nil && m.ID != nil:
		answer, _ = json.Marshal(rpcError{JSONRPC: "2.0", ID: m.ID, Error: rpcErrorBody{Code: -32603, Message: err.Error()}})
	case err != nil:
		return
	}
	if len(answer) == 0 {
		return // a notification's 202
	}
	var line bytes.Buffer
	if json.Compact(&line, answer) != nil {
		return
	}
	line.WriteByte('\n')
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.out.Write(line.Bytes())
}

// post sends msg to the bridge and returns its JSON body ("" for 202);
// for initialize it keeps the session id and the negotiated version.
func (p *proxy) post(ctx context.Context, msg []byte, initialize bool) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.f.URL, bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	p.headers(req)
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the loopback tool server could not be reached: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("the loopback tool server's answer could not be read: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return nil, nil
	case resp.StatusCode != http.StatusOK || !json.Valid(body):
		return nil, fmt.Errorf("the loopback tool server answered HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body[:min(len(body), 512)]))
	}
	if initialize {
		var r struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		_ = json.Unmarshal(body, &r)
		p.mu.Lock()
		p.session, p.version = resp.Header.Get("Mcp-Session-Id"), r.Result.ProtocolVersion
		p.mu.Unlock()
	}
	return body, nil
}

// headers sets the bearer, and the session and version once initialize
// gave them.
func (p *proxy) headers(req *http.Request) {
	req.Header.Set("Authorization", "Bearer "+p.f.Token)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
	}
	if p.version != "" {
		req.Header.Set("Mcp-Protocol-Version", p.version)
	}
}

// end ends the MCP session, as an HTTP client does at exit (BRG-2's DELETE).
func (p *proxy) end(ctx context.Context) {
	p.mu.Lock()
	open := p.session != ""
	p.mu.Unlock()
	if !open {
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, p.f.URL, nil)
	if err != nil {
		return
	}
	p.headers(req)
	if resp, err := p.client.Do(req); err == nil {
		resp.Body.Close()
	}
}
