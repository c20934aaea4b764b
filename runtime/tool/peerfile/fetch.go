package peerfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// InboxDir is where fetched files land, relative to the accessible workdir.
const InboxDir = "peer-in"

// FetchConfig is what fetch-peer-file needs (PFILE-4).
type FetchConfig struct {
	Workdir string             // the accessible workdir, absolute
	Allow   manifest.AllowList // capabilities.peer_fetch.allow
	// Name and URL are this capsule's card name and door URL: the
	// audience it asserts is "<name>@<host:port of URL>", lowercased.
	Name string
	URL  string
	// Client sends the redeem (nil: NewClient()).
	Client *http.Client
	// MaxBytes is capabilities.peer_fetch.max_bytes: a body past it is
	// refused too_large (<= 0: manifest.DefaultExportMaxBytes).
	MaxBytes int64
	// Idle bounds the wait for the body's next byte (<= 0: FetchIdle).
	Idle time.Duration
}

// FetchIdle is how long a fetch waits for the next byte of a body before it
// gives up on a stalled peer.
const FetchIdle = 30 * time.Second

// Fetch is fetch-peer-file (PFILE-4).
func Fetch(cfg FetchConfig) tool.Tool {
	if cfg.Client == nil {
		cfg.Client = NewClient()
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = manifest.DefaultExportMaxBytes
	}
	if cfg.Idle <= 0 {
		cfg.Idle = FetchIdle
	}
	return &fetchTool{cfg: cfg}
}

type fetchTool struct{ cfg FetchConfig }

func (t *fetchTool) Spec() tool.Spec {
	return tool.Spec{Name: tool.NameFetchPeerFile, Description: fetchDescription, InputSchema: json.RawMessage(fetchSchema), Kind: tool.KindRuntime}
}

// fetched is fetch-peer-file's data, keys sorted (TOOL-5): never the content.
type fetched struct {
	Bytes      int64  `json:"bytes"`
	Generation uint64 `json:"generation"`
	Path       string `json:"path"`
	Peer       string `json:"peer"`
	SHA256     string `json:"sha256"`
}

// etagRe is the plane's validator, "sha256:<64 hex>" in quotes.
var etagRe = regexp.MustCompile(`^"sha256:([0-9a-f]{64})"$`)

// maxRefusal bounds the refusal body a fetcher reads.
const maxRefusal = 64 << 10

// Call checks peer against capabilities.peer_fetch.allow before any
// connection, redeems the handle with this capsule's audience, streams the
// body to a temporary file in peer-in/ while hashing it, and keeps it only
// when the hash is the etag's. A body over max_bytes (declared or streamed)
// and one that stalls past the idle bound leave nothing in peer-in/. Every outcome past the input checks writes
// one peer_file_fetch (PFILE-6); the handle is recorded only by its id.
func (t *fetchTool) Call(ctx context.Context, cc *tool.CallContext, input json.RawMessage) tool.Result {
	name := tool.NameFetchPeerFile
	obj := tool.DecodeObject(input)
	peer, ok := tool.StringField(obj, "peer")
	if !ok || peer == "" {
		return tool.Needs(name, "peer")
	}
	handle, ok := tool.StringField(obj, "handle")
	if !ok || handle == "" {
		return tool.Needs(name, "handle")
	}
	base, ok := peerBase(peer)
	if !ok {
		return tool.Needs(name, needsPeer)
	}
	id := peerplane.ID(handle)
	rec := trace.PeerFileFetch{Turn: cc.Turn, TaskID: cc.TaskID, Peer: peer, HandleID: id}
	fail := func(code, message, reason string) tool.Result {
		rec.Outcome, rec.Reason = code, &reason
		res := failed(name, code, message)
		res.Records = []tool.Rec{{Record: rec}}
		return res
	}
	if !t.cfg.Allow.Allows(base) {
		return fail(codePeerNotAllowed, "capabilities.peer_fetch.allow does not list "+peer,
			"capabilities.peer_fetch.allow does not list "+peer)
	}
	hp, ok := hostPort(t.cfg.URL)
	if !ok {
		return fail(peerplane.CodeIOError, "this capsule has no door address to name itself by", "no door URL")
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+peerplane.Path+"/"+url.PathEscape(handle), nil)
	if err != nil {
		return fail(peerplane.CodeIOError, "the request could not be built", err.Error())
	}
	req.Header.Set(peerplane.HeaderAudience, peerplane.Audience(t.cfg.Name, hp))
	client.SetTraceContext(ctx, req.Header) // OTEL-1: the fetch joins the calling task's trace
	resp, err := t.cfg.Client.Do(req)
	if err != nil {
		why := unwrapURL(err).Error()
		return fail(codePeerUnreachable, "the peer "+peer+" could not be reached: "+why, why)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		code, message := peerRefusal(resp)
		return fail(code, message, fmt.Sprintf("the peer answered HTTP %d %s", resp.StatusCode, code))
	}
	m := etagRe.FindStringSubmatch(resp.Header.Get("Etag"))
	if m == nil {
		return fail(codeEtagMismatch, "the peer's answer carries no sha256 etag", "no sha256 etag on the 200")
	}
	max := t.cfg.MaxBytes
	if resp.ContentLength > max {
		return fail(peerplane.CodeTooLarge, fmt.Sprintf("the file is %d bytes, over capabilities.peer_fetch.max_bytes %d; nothing was stored", resp.ContentLength, max),
			fmt.Sprintf("content-length %d over max_bytes %d", resp.ContentLength, max))
	}
	stored := InboxDir + "/" + id + "-" + sanitise(handle)
	body := newIdleReader(resp.Body, t.cfg.Idle, func() { stop(errStalled) })
	defer body.stop()
	n, sum, ferr := store(t.cfg.Workdir, path.Base(stored), body, resp.ContentLength, max, m[1])
	switch {
	case errors.Is(ferr, errTooLarge):
		return fail(peerplane.CodeTooLarge, fmt.Sprintf("the peer sent more than capabilities.peer_fetch.max_bytes %d; nothing was stored", max),
			fmt.Sprintf("the body ran past max_bytes %d", max))
	case errors.Is(context.Cause(ctx), errStalled):
		why := fmt.Sprintf("the peer sent nothing for %s after %d bytes", t.cfg.Idle, n)
		return fail(peerplane.CodeIOError, why+"; nothing was stored", why)
	case errors.Is(ferr, errMismatch):
		return fail(codeEtagMismatch, "the bytes received do not hash to the peer's etag; nothing was stored",
			fmt.Sprintf("%d bytes hash to %s, the etag says %s", n, sum, m[1]))
	case ferr != nil:
		return fail(peerplane.CodeIOError, "the file could not be received and stored: "+ferr.Error(), ferr.Error())
	}
	gen, _ := strconv.ParseUint(resp.Header.Get(peerplane.HeaderGeneration), 10, 64)
	rec.Outcome, rec.StoredPath, rec.Bytes, rec.SHA256 = "ok", &stored, &n, &sum
	return tool.Result{Status: tool.Passed, Summary: name + ": ok",
		Data:    tool.JSON(fetched{Bytes: n, Generation: gen, Path: stored, Peer: peer, SHA256: sum}),
		Records: []tool.Rec{{Record: rec}}}
}

// peerRefusal reads a refusal body: the peer's code when it has the shape
// of one, else io_error.
func peerRefusal(resp *http.Response) (code, message string) {
	var body struct{ Error, Message string }
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxRefusal))
	if json.Unmarshal(b, &body) != nil || !peerplane.IsCode(body.Error) {
		return peerplane.CodeIOError, fmt.Sprintf("the peer answered HTTP %d without a peer-plane refusal", resp.StatusCode)
	}
	return body.Error, "the peer refused the handle: " + body.Message
}

// sanitise is the stored file's name after its handle id: the basename of
// the path the handle's payload names, every byte outside [A-Za-z0-9._-]
// replaced by '_', leading dots dropped, at most 96 bytes; "file" when
// nothing is left or the payload does not parse.
func sanitise(handle string) string {
	h, err := peerplane.Parse(handle)
	if err != nil {
		return "file"
	}
	b := []byte(path.Base(h.Payload.P))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	s := strings.TrimLeft(string(b), ".")
	if len(s) > 96 {
		s = s[:96]
	}
	if s == "" {
		return "file"
	}
	return s
}
