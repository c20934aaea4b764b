package fakeserver

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// SSE writes a streamed reply (process.md PTEST-6): header's entries, 200,
// Content-Type text/event-stream, then each event as `event: <name>` and
// `data: <json>` lines, flushed one by one as a provider streams them.
func SSE(w http.ResponseWriter, header map[string]string, events []Event) {
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	for _, e := range events {
		b, err := json.Marshal(e.Data)
		if err != nil {
			b = []byte(fmt.Sprintf(`{"fake_error":%q}`, err.Error()))
		}
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Name, b)
		if fl != nil {
			fl.Flush()
		}
	}
}

// Event is one server-sent event: its name and its data, marshalled.
type Event struct {
	Name string
	Data any
}
