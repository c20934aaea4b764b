package door

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/murmur-go/mur/a2a"
)

// nullID is the id of an answer to a request whose id could not be read.
var nullID = json.RawMessage("null")

// envelope is one JSON-RPC 2.0 request read from raw JSON (RPC-1).
type envelope struct {
	id     json.RawMessage // the raw id bytes, echoed with their JSON type; nil for a notification
	method string
	params json.RawMessage // nil when absent or null; else an object or array
}

// isArray reports whether params is a JSON array (ORD-1 step 13).
func (e *envelope) paramsArray() bool { return len(e.params) > 0 && e.params[0] == '[' }

// parseEnvelope runs ORD-1 steps 6 and 7 over the body. On failure it returns
// the error to answer and the id to answer it with: -32700 with a null id for
// a body that is not JSON (valid UTF-8 included), -32600 for JSON that is not
// one request, echoing the id when the id itself is valid.
func parseEnvelope(body []byte) (envelope, json.RawMessage, *a2a.Error) {
	if !utf8.Valid(body) {
		return envelope{}, nullID, a2a.ParseError()
	}
	if !json.Valid(body) {
		return envelope{}, nullID, a2a.ParseError()
	}
	m, ok := scanObject(body)
	members := object(m)
	if !ok {
		return envelope{}, nullID, a2a.InvalidRequest() // JSON, but a batch, a scalar or null
	}
	var env envelope
	rawID, hasID := members.get("id")
	idOK := hasID && validID(rawID)
	answerID := nullID
	if idOK {
		answerID = rawID
	}
	if hasID && !idOK {
		return envelope{}, nullID, a2a.InvalidRequest()
	}
	rawVersion, _ := members.get("jsonrpc")
	if version, ok := decodeString(rawVersion); !ok || version != "2.0" {
		return envelope{}, answerID, a2a.InvalidRequest()
	}
	rawMethod, _ := members.get("method")
	if env.method, ok = decodeString(rawMethod); !ok {
		return envelope{}, answerID, a2a.InvalidRequest()
	}
	if p, ok := members.get("params"); ok {
		switch p[0] {
		case '{', '[':
			env.params = p
		case 'n': // null reads as absent
		default:
			return envelope{}, answerID, a2a.InvalidRequest()
		}
	}
	if hasID {
		env.id = rawID
	}
	return env, nil, nil
}

// validID reports whether a raw id is a string or an integer: no fraction,
// no exponent, not null (RPC-1).
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || c >= '0' && c <= '9':
		return !bytes.ContainsAny(raw, ".eE")
	}
	return false
}
