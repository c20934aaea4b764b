package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A2A §8.6.1: card.cache passes a card served with a max-age directive and
// an ETag, and warns, naming what is missing, on a card without them.
func TestCardCache_A2A861(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cacheControl, etag string
		want               Status
		why                []string
	}{
		{"max-age=60", `"v1"`, Pass, nil},
		{"no-cache, max-age=0", `"v1"`, Pass, nil},
		{"", "", Warn, []string{"no Cache-Control header", "no ETag header"}},
		{"no-store", `"v1"`, Warn, []string{`Cache-Control "no-store" has no max-age directive`}},
		{"max-age=60", "", Warn, []string{"no ETag header"}},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if c.cacheControl != "" {
				w.Header().Set("Cache-Control", c.cacheControl)
			}
			if c.etag != "" {
				w.Header().Set("ETag", c.etag)
			}
			_, _ = w.Write([]byte(`{"name":"x"}`))
		}))
		r := runSelected(context.Background(), Config{URL: srv.URL}, "card.cache")["card.cache"]
		srv.Close()
		if r.Status != c.want {
			t.Errorf("Cache-Control %q, ETag %q: %s, want %s", c.cacheControl, c.etag, r, c.want)
		}
		for _, w := range c.why {
			if !strings.Contains(r.Why, w) {
				t.Errorf("Cache-Control %q, ETag %q: why %q, want it to name %q", c.cacheControl, c.etag, r.Why, w)
			}
		}
	}
}
