package peerfile

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/murmur-go/mur/runtime/tool"
)

// The tools' descriptions and input schemas (STAGE-2).
const (
	shareDescription = "Shares one file under this capsule's export root with one peer capsule: mints a handle only that peer can redeem, " +
		"until it expires or this session ends. Send the handle to the peer in a message; the file itself never passes through the conversation."
	fetchDescription = "Fetches a file a peer capsule shared with you: redeems the handle it sent at that peer and stores the file under peer-in/ " +
		"in your workdir. Returns where the file is stored, its size and sha256 — never its content; read the file if you need it."
	fetchSchema = `{"type":"object","properties":{` +
		`"peer":{"type":"string","description":"the sharing capsule's address: host:port or an http(s) URL"},` +
		`"handle":{"type":"string","description":"the handle the peer sent (mh1.…)"}},"required":["peer","handle"]}`
)

func shareSchema(maxTTL time.Duration) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"the file, relative to the export root"},` +
		`"peer":{"type":"string","description":"the peer capsule's address: host:port or an http(s) URL"},` +
		`"ttl":{"type":"string","description":"how long the handle lives, e.g. 10m; at most, and by default, ` + formatTTL(maxTTL) + `"}},` +
		`"required":["path","peer"]}`)
}

// formatTTL writes a duration as MAN-3 does: the largest whole unit.
func formatTTL(d time.Duration) string {
	s := int64(d / time.Second)
	switch {
	case s > 0 && s%86400 == 0:
		return fmt.Sprintf("%dd", s/86400)
	case s > 0 && s%3600 == 0:
		return fmt.Sprintf("%dh", s/3600)
	case s > 0 && s%60 == 0:
		return fmt.Sprintf("%dm", s/60)
	}
	return fmt.Sprintf("%ds", s)
}

// TOOL-11 refusals of a malformed input.
const (
	needsPeer = "peer as host:port or an http(s) URL"
	needsTTL  = "ttl as a positive duration such as 10m"
)

// failed is a plane outcome that is not ok: a failed result naming its code
// (PFILE-6), its body the plane's refusal shape.
func failed(name, code, message string) tool.Result {
	return tool.Result{Status: tool.Failed, Summary: name + ": " + code,
		Data: tool.JSON(struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}{code, message})}
}

// The fetcher's own outcomes (PFILE-6) and their sentences.
const (
	codePeerNotAllowed  = "peer_not_allowed"
	codePeerUnreachable = "peer_unreachable"
	codeEtagMismatch    = "etag_mismatch"
)
