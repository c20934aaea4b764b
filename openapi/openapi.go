// Package openapi holds openapi.yaml: the OpenAPI 3.1 description of a mur
// door's HTTP surface (door.md §1) — the card route, the JSON-RPC route with
// every method's params and result schemas, the error and ErrorInfo schemas,
// the SSE event and stream/watch frame schemas, /metrics and the HTTP refusal
// bodies. Its test keeps it true: the door's chi routes and nothing else, and
// real answers of a running door validate against its schemas.
//
// # Example
//
//	http.HandleFunc("/openapi.yaml", func(w http.ResponseWriter, r *http.Request) {
//		w.Header().Set("Content-Type", "application/yaml")
//		w.Write(openapi.YAML())
//	})
package openapi

import (
	"bytes"
	_ "embed" // the document is embedded
)

//go:embed openapi.yaml
var document []byte

// YAML returns the document's bytes (a copy the caller may keep or change).
func YAML() []byte { return bytes.Clone(document) }
