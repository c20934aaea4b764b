package choice_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/anthropic"
	anthfake "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	"github.com/murmur-go/mur/runtime/driver/choice"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
	"github.com/murmur-go/mur/runtime/driver/scripted"
)

func hi() *driver.Request {
	return &driver.Request{Model: "m", MaxTokens: 16, Messages: []driver.Message{{Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock("hi")}}}}
}

// TestOpenEachKind builds every kind from its block values (DRV-2) and makes
// one call through it.
func TestOpenEachKind(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "script.yaml")
	if err := os.WriteFile(script, []byte("script_version: 1\nfallback: {turns: [{text: scripted}]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	oa := fake.New(fake.Config{APIKey: "sk-o"})
	defer oa.Close()
	oa.Enqueue(fake.Text("openai"))
	an := anthfake.New(anthfake.Config{})
	defer an.Close()
	an.Enqueue(anthfake.Text("anthropic"))
	for _, s := range []choice.Spec{
		{Kind: "scripted", Script: script},
		{Kind: "openai", Endpoint: oa.URL, APIKey: "sk-o", Credential: "OPENAI_API_KEY", Config: map[string]any{"request_timeout_secs": int64(5)}},
		{Kind: "anthropic", Endpoint: an.URL, Config: map[string]any{}},
	} {
		d, err := choice.Open(s)
		if err != nil {
			t.Fatalf("Open(%s) error = %v", s.Kind, err)
		}
		r, err := d.Complete(context.Background(), hi())
		if err != nil || d.Kind() != s.Kind || r.Text() != s.Kind {
			t.Errorf("%s: Complete() = %v, %v (kind %s)", s.Kind, r, err, d.Kind())
		}
	}
	if f := append(oa.Failures(), an.Failures()...); len(f) > 0 {
		t.Errorf("fake failures: %q", f)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	if _, err := choice.Open(choice.Spec{Kind: scripted.Kind, Script: missing}); !diag.Is(err, "E-RUN-009") {
		t.Errorf("missing script: %v, want E-RUN-009", err)
	}
	var oe *driver.OptionError
	if _, err := choice.Open(choice.Spec{Kind: anthropic.Kind, Config: map[string]any{"request_timeout_secs": 0}}); !errors.As(err, &oe) {
		t.Errorf("bad config: %v, want an OptionError", err)
	}
	if _, err := choice.Open(choice.Spec{Kind: "wasm"}); err == nil {
		t.Error("unknown kind opened")
	}
}
