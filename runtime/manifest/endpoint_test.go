package manifest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
)

// TestEndpointRule: one rule for both HTTP drivers: endpoint is the base URL
// the provider's own SDK takes. A path the driver adds itself is refused
// with the URL to write (E-MAN-003), never left to post to /v1/v1/messages
// (DRV-5, DRV-6).
func TestEndpointRule(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, tt := range []struct{ kind, endpoint string }{
		{KindAnthropic, "https://api.anthropic.com"},
		{KindAnthropic, "https://api.anthropic.com/"},
		{KindAnthropic, "https://api.anthropic.com/v1"},
		{KindAnthropic, "https://api.anthropic.com/v1/"},
		{KindAnthropic, "https://api.anthropic.com/v1/messages"},
		{KindAnthropic, "https://gateway.example.com/anthropic/v1"},
		{KindAnthropic, "https://gateway.example.com/v1beta"},
		{KindOpenAI, "https://api.openai.com/v1"},
		{KindOpenAI, "http://localhost:11434/v1"},
		{KindOpenAI, "http://localhost:11434/v1/chat/completions"},
		{KindOpenAI, "https://generativelanguage.googleapis.com/v1beta/openai/"},
	} {
		text := fmt.Sprintf("name: c\nversion: \"1.0.0\"\ninference:\n  driver:\n    endpoint: %s\n    kind: %s\n    model: m\n    keyless: true\n", tt.endpoint, tt.kind)
		_, _, err := Parse("murmur.yaml", []byte(text), nil)
		got := "ok\n"
		if d, ok := diag.As(err); ok {
			got = d.Render()
		} else if err != nil {
			t.Fatalf("Parse = %v", err)
		}
		fmt.Fprintf(&b, "== %s %s\n%s", tt.kind, tt.endpoint, got)
	}
	golden.Check(t, "endpoint-rule", b.String())
}
