package door

import (
	"bytes"
	"encoding/json"
)

// A small scanner over JSON the door has already validated (parseEnvelope
// checks the whole body first). It splits objects and arrays into raw
// members without decoding or copying them, so each request is read in one
// pass; keys match exactly, as TASK-1 wants (encoding/json matches struct
// fields case-blind). It never panics on malformed input: it reports !ok.

// member is one object member: its key (unescaped) and its raw value.
type member struct {
	key []byte
	val []byte
}

// scanObject splits a JSON object into its members, in order.
func scanObject(b []byte) ([]member, bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	out := make([]member, 0, 8) // 8: more members than any door request object has
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		end, ok := skipString(b, i)
		if !ok {
			return nil, false
		}
		key := b[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			if json.Unmarshal(b[i:end], &s) != nil {
				return nil, false
			}
			key = []byte(s)
		}
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		start := skipWS(b, i+1)
		if end, ok = skipValue(b, start); !ok {
			return nil, false
		}
		out = append(out, member{key, b[start:end]})
		i = skipWS(b, end)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return out, skipWS(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}

// scanArray splits a JSON array into its raw elements.
func scanArray(b []byte) ([][]byte, bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	var out [][]byte
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, skipWS(b, i+1) == len(b)
	}
	for {
		end, ok := skipValue(b, i)
		if !ok {
			return nil, false
		}
		out = append(out, b[i:end])
		i = skipWS(b, end)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return out, skipWS(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, ok := skipString(b, i)
				if !ok {
					return 0, false
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	}
	start := i
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i, i > start
		}
	}
	return i, i > start
}
