package fakeserver

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
)

// CheckPost checks what both providers want of every request: POST to path
// with a JSON body. It returns "" or the problem.
func CheckPost(r *http.Request, path string) string {
	if r.Method != http.MethodPost {
		return "method " + r.Method + ", want POST"
	}
	if r.URL.Path != path {
		return "path " + r.URL.Path + ", want " + path
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return "Content-Type " + r.Header.Get("Content-Type") + ", want application/json"
	}
	return ""
}

// DecodeStrict decodes body into a B, refusing unknown fields and trailing
// data. On a problem it returns the zero B and "body: <why>".
func DecodeStrict[B any](body []byte) (B, string) {
	var b B
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		var zero B
		return zero, "body: " + err.Error()
	}
	if dec.More() {
		var zero B
		return zero, "body: trailing data"
	}
	return b, ""
}

// Send writes a scripted reply: under status (0 = 200) with header's
// entries, body as given when it is not "" (errors, malformed bodies), else
// the body build makes.
func Send(w http.ResponseWriter, status int, header map[string]string, body string, build func() []byte) {
	b := []byte(body)
	if body == "" {
		b = build()
	}
	WriteReply(w, status, header, b)
}

// RetryAfter is the header of a reply carrying Retry-After: v; nil when v
// is "".
func RetryAfter(v string) map[string]string {
	if v == "" {
		return nil
	}
	return map[string]string{"Retry-After": v}
}

// WriteReply writes a scripted reply: header's entries, status (0 = 200),
// Content-Type application/json, and body.
func WriteReply(w http.ResponseWriter, status int, header map[string]string, body []byte) {
	for k, v := range header {
		w.Header().Set(k, v)
	}
	if status == 0 {
		status = http.StatusOK
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Marshal is v as a provider writes JSON: no HTML escaping, no newline.
// v is maps and plain values, which always marshal.
func Marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
