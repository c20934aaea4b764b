package door

import (
	"testing"

	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// TestServerTimeouts_DOOR7: slow headers and idle connections are cut, but
// the server has no write timeout (streams and blocking calls) and no
// whole-request read timeout (it would cancel a stream's context); bodies
// get their own read deadline per request.
func TestServerTimeouts_DOOR7(t *testing.T) {
	td := startDoor(t, opts{})
	h := td.door.http
	if h.WriteTimeout != 0 || h.ReadTimeout != 0 || h.ReadHeaderTimeout <= 0 || h.IdleTimeout <= 0 {
		t.Errorf("timeouts: write %v read %v header %v idle %v", h.WriteTimeout, h.ReadTimeout, h.ReadHeaderTimeout, h.IdleTimeout)
	}
}

func TestNewRefusesIncompleteConfig(t *testing.T) {
	reg, err := tasktable.New(tasktable.Config{Acceptance: tasktable.ModeSingle})
	if err != nil {
		t.Fatal(err)
	}
	good := Config{Registry: reg, Acceptance: tasktable.ModeSingle, SessionID: testSession,
		Card: agentcard.Config{Name: "coder", Version: "1.0.0", URL: "http://127.0.0.1:1"}}
	if _, err := New(good); err != nil {
		t.Fatalf("New(good) = %v", err)
	}
	for name, mutate := range map[string]func(*Config){
		"no registry":      func(c *Config) { c.Registry = nil },
		"no session":       func(c *Config) { c.SessionID = "" },
		"bad acceptance":   func(c *Config) { c.Acceptance = "often" },
		"no card name":     func(c *Config) { c.Card.Name = "" },
		"auth no realm":    func(c *Config) { c.Auth = &Auth{} },
		"formation no key": func(c *Config) { c.Auth = &Auth{Realm: "coder", Formation: &Formation{ID: "frm_x", Member: "m"}} },
	} {
		c := good
		mutate(&c)
		if _, err := New(c); err == nil {
			t.Errorf("New(%s) accepted", name)
		}
	}
}
