package httpcall

import (
	"net/http"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/driver"
)

// TestNew: the endpoint ("" = the default) must be http(s); the URL drops a
// trailing '/'; Timeout and Client take DRV-4's defaults (DRV-4, DRV-5, DRV-6).
func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		endpoint, want, wantErr string
	}{
		{"", "https://api.example.com/v1/x", ""},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1/x", ""},
		{"https://h/base//", "https://h/base/v1/x", ""},
		{"ftp://x/v1", "", `k endpoint "ftp://x/v1" is not an http(s) URL`},
		{"localhost:8080", "", `k endpoint "localhost:8080" is not an http(s) URL`},
		{"http://", "", `k endpoint "http://" is not an http(s) URL`},
		{"::", "", `k endpoint "::" is not an http(s) URL`},
	}
	for _, tt := range tests {
		url, c, err := New("k", "https://api.example.com", "/v1/x", driver.HTTPConfig{Endpoint: tt.endpoint, Credential: "K_KEY"})
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr || c != nil {
				t.Errorf("New(%q) = %v, %v; want error %q", tt.endpoint, c, err, tt.wantErr)
			}
		case err != nil || url != tt.want:
			t.Errorf("New(%q) = %q, %v; want %q", tt.endpoint, url, err, tt.want)
		case c.Kind != "k" || c.Timeout != driver.DefaultRequestTimeout || c.Client == nil || c.Credential != "K_KEY":
			t.Errorf("New(%q) caller = %+v", tt.endpoint, c)
		}
	}
	client := &http.Client{}
	_, c, err := New("k", "http://h", "", driver.HTTPConfig{HTTPClient: client, Options: driver.Options{RequestTimeout: 3 * time.Second}})
	if err != nil || c.Client != client || c.Timeout != 3*time.Second {
		t.Errorf("New(set) = %+v, %v; want the given client and timeout", c, err)
	}
}
