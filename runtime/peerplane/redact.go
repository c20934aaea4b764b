package peerplane

import (
	"bytes"
	"regexp"
	"strings"
)

// tokenRe finds tokens in text: mh1, a payload segment (a real one is ~120
// characters; 40 keeps "mh1.tar.gz" out) and a MAC segment (43 characters;
// a longer run of the alphabet is redacted whole).
var tokenRe = regexp.MustCompile(`mh1\.[A-Za-z0-9_-]{40,}\.[A-Za-z0-9_-]{43,}`)

// Placeholder is how a token appears in records and logs (PFILE-6):
// <handle:<handle_id>>.
func Placeholder(handleID string) string { return "<handle:" + handleID + ">" }

// Redact returns s with every token replaced by its Placeholder. Text
// without "mh1." is returned as is, at the cost of one search.
func Redact(s string) string {
	if !strings.Contains(s, Prefix+".") {
		return s
	}
	return tokenRe.ReplaceAllStringFunc(s, func(tok string) string { return Placeholder(ID(tok)) })
}

// RedactBytes is Redact over bytes; b itself is returned when it holds no
// token.
func RedactBytes(b []byte) []byte {
	if !bytes.Contains(b, []byte(Prefix+".")) {
		return b
	}
	return tokenRe.ReplaceAllFunc(b, func(tok []byte) []byte { return []byte(Placeholder(ID(string(tok)))) })
}
