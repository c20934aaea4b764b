package peerfile

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// ShareFile is share-file (PFILE-2) over this plane.
func (p *Plane) ShareFile() tool.Tool { return &shareTool{p: p} }

type shareTool struct{ p *Plane }

func (t *shareTool) Spec() tool.Spec {
	return tool.Spec{Name: tool.NameShareFile, Description: shareDescription, InputSchema: shareSchema(t.p.cfg.MaxTTL), Kind: tool.KindRuntime}
}

// shared is share-file's data, keys sorted (TOOL-5).
type shared struct {
	Audience    string `json:"audience"`
	ExpiresAtMS int64  `json:"expires_at_ms"`
	Handle      string `json:"handle"`
	HandleID    string `json:"handle_id"`
}

// Call mints a handle for path, bound to peer's audience, for ttl clamped
// to max_ttl. The path is checked, and the file opened the way a redeem
// opens it, before the peer is asked for its card; every outcome past the
// input checks writes one peer_handle_mint (PFILE-6).
func (t *shareTool) Call(ctx context.Context, cc *tool.CallContext, input json.RawMessage) tool.Result {
	name, p := tool.NameShareFile, t.p
	obj := tool.DecodeObject(input)
	rel, ok := tool.StringField(obj, "path")
	if !ok || rel == "" {
		return tool.Needs(name, "path")
	}
	peer, ok := tool.StringField(obj, "peer")
	if !ok || peer == "" {
		return tool.Needs(name, "peer")
	}
	base, ok := peerBase(peer)
	if !ok {
		return tool.Needs(name, needsPeer)
	}
	ttl := p.cfg.MaxTTL
	if raw, ok := obj["ttl"]; ok && string(raw) != "null" {
		d, ok := parseTTL(raw)
		if !ok {
			return tool.Needs(name, needsTTL)
		}
		ttl = min(d, p.cfg.MaxTTL) // it may only narrow
	}
	rec := trace.PeerHandleMint{Turn: cc.Turn, TaskID: cc.TaskID, Path: rel}
	fail := func(code, message, reason string) tool.Result {
		rec.Outcome, rec.Reason = code, &reason
		res := failed(name, code, message)
		res.Records = []tool.Rec{{Record: rec}}
		return res
	}
	o, rf := p.open(rel)
	if rf != nil {
		return fail(rf.r.Code, "'"+rel+"' cannot be shared: "+rf.reason, rf.reason)
	}
	o.f.Close()
	if !p.cfg.Network.Allows(base) {
		return fail(codePeerUnreachable, "capabilities.network.allow does not reach "+peer,
			"capabilities.network.allow does not list "+peer)
	}
	audience, err := p.audienceOf(ctx, base)
	if err != nil {
		return fail(codePeerUnreachable, "the peer "+peer+" could not be reached: "+err.Error(), err.Error())
	}
	rec.Audience = audience
	exp := p.cfg.Now().Add(ttl).UnixMilli()
	tok, ok := p.mint(peerplane.Payload{Iss: p.cfg.SessionID, P: rel, Exp: exp}, audience)
	if !ok {
		return fail(peerplane.CodeIOError, "this session has ended; it mints no handles", "the session's key is gone")
	}
	id := peerplane.ID(tok)
	rec.HandleID, rec.ExpiresAtMS, rec.Outcome = &id, &exp, "ok"
	return tool.Result{Status: tool.Passed, Summary: name + ": ok",
		Data:    tool.JSON(shared{Audience: audience, ExpiresAtMS: exp, Handle: tok, HandleID: id}),
		Records: []tool.Rec{{Record: rec}}}
}

// parseTTL reads a ttl: a MAN-3 duration string, or whole seconds.
func parseTTL(raw json.RawMessage) (time.Duration, bool) {
	var d time.Duration
	if s, ok := tool.RawString(raw); ok {
		v, err := manifest.ParseDuration(s)
		if err != nil {
			return 0, false
		}
		d = v
	} else {
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > int64(1<<62/time.Second) {
			return 0, false
		}
		d = time.Duration(n) * time.Second
	}
	return d, d > 0
}
