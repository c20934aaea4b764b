package agentcard

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/golden"
)

func config(a Acceptance, authenticated bool) Config {
	return Config{
		Name: "coder", Version: "1.2.0", URL: "http://127.0.0.1:41873", Acceptance: a,
		PeerTasks: true, Authenticated: authenticated, SessionID: "ses_019f01a940ce7761854e768ecbe3d399",
		Shell: true, Network: true,
	}
}

// TestCardGolden pins the four door kinds and the extended card byte for byte
// (CARD-1..7).
func TestCardGolden_CARD1to7(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"public_queue", config(AcceptQueue, false)},
		{"public_single", config(AcceptSingle, false)},
		{"public_none", config(AcceptNone, false)},
		{"authenticated_single", config(AcceptSingle, true)},
		{"authenticated_none", config(AcceptNone, true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cards, err := Build(tt.cfg)
			if err != nil {
				t.Fatalf("Build() error = %v", err)
			}
			golden.Check(t, tt.name, cards.Public)
			if !tt.cfg.Authenticated {
				if cards.Extended != nil {
					t.Errorf("public door has an extended card: %s", cards.Extended)
				}
				return
			}
			golden.Check(t, "extended_"+strings.TrimPrefix(tt.name, "authenticated_"), cards.Extended)
		})
	}
}

// TestCardMatchesSpecExample checks the public queue card against door.md's
// compact example with its elided descriptions filled in (CARD-1..4).
func TestCardMatchesSpecExample_CARD1to4(t *testing.T) {
	example := `{"name":"coder","description":"Murmur capsule coder 1.2.0","version":"1.2.0",
 "supportedInterfaces":[{"url":"http://127.0.0.1:41873","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
   {"url":"http://127.0.0.1:41873","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],
 "capabilities":{"streaming":true,"pushNotifications":false,"extendedAgentCard":false,"extensions":[
   {"uri":"https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1","description":"D","required":false,
    "params":{"methods":["SendMessage","SendStreamingMessage","SubscribeToTask","stream/watch","GetTask","ListTasks","CancelTask","session/stop"],"peerTasks":true}},
   {"uri":"https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1","description":"C","required":false,
    "params":{"sessionId":"ses_019f01a940ce7761854e768ecbe3d399","tools":[],"shell":true,"network":true,"planes":[]}},
   {"uri":"https://docs.murmur.nexus/reference/streaming-protocol/#murmur-stream-v1","description":"S","required":false,
    "params":{"frames":["status","artifact","text","gap","lagged","connection-ack","capsule-closed"]}}]},
 "securitySchemes":{},"securityRequirements":[],
 "defaultInputModes":["text/plain","application/json"],"defaultOutputModes":["text/plain","application/json"],
 "skills":[{"id":"task","name":"Run a task","description":"K","tags":["task"]}]}`
	r := strings.NewReplacer(`"description":"D"`, quote(doorDescription), `"description":"C"`, quote(capsuleDescription),
		`"description":"S"`, quote(streamDescription), `"description":"K"`, quote(skillDescription))
	var want bytes.Buffer
	if err := json.Compact(&want, []byte(r.Replace(example))); err != nil {
		t.Fatal(err)
	}
	cards, err := Build(config(AcceptQueue, false))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cards.Public, want.Bytes()) {
		t.Errorf("public card =\n%s\nwant\n%s", cards.Public, want.Bytes())
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return `"description":` + string(b)
}

// TestCardParsesStrictly reads every card as a strict lf.a2a.v1.AgentCard:
// no key the A2A type lacks (door.md §2).
func TestCardParsesStrictly_CARD1(t *testing.T) {
	for _, a := range []Acceptance{AcceptNone, AcceptSingle, AcceptQueue} {
		for _, auth := range []bool{false, true} {
			cards, err := Build(config(a, auth))
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range [][]byte{cards.Public, cards.Extended} {
				if b == nil {
					continue
				}
				dec := json.NewDecoder(bytes.NewReader(b))
				dec.DisallowUnknownFields()
				var c a2a.AgentCard
				if err := dec.Decode(&c); err != nil {
					t.Fatalf("strict decode (%s, auth %v) error = %v", a, auth, err)
				}
				if len(c.Skills) != 1 || c.Extension(a2a.ExtensionDoor) == nil || c.Extension(a2a.ExtensionStream) == nil {
					t.Errorf("card (%s, auth %v) lacks the task skill or an extension: %s", a, auth, b)
				}
			}
		}
	}
}

// TestExtendedCardRestoresCapsule checks CARD-7: the extended card is the
// authenticated public card with the capsule extension between door and stream.
func TestExtendedCardRestoresCapsule_CARD7(t *testing.T) {
	cards, err := Build(config(AcceptQueue, true))
	if err != nil {
		t.Fatal(err)
	}
	var pub, ext map[string]any
	if err := json.Unmarshal(cards.Public, &pub); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(cards.Extended, &ext); err != nil {
		t.Fatal(err)
	}
	uris := func(m map[string]any) []string {
		var u []string
		for _, e := range m["capabilities"].(map[string]any)["extensions"].([]any) {
			u = append(u, e.(map[string]any)["uri"].(string))
		}
		return u
	}
	if got, want := uris(pub), []string{a2a.ExtensionDoor, a2a.ExtensionStream}; !reflect.DeepEqual(got, want) {
		t.Errorf("public extensions = %v, want %v", got, want)
	}
	if got, want := uris(ext), []string{a2a.ExtensionDoor, a2a.ExtensionCapsule, a2a.ExtensionStream}; !reflect.DeepEqual(got, want) {
		t.Errorf("extended extensions = %v, want %v", got, want)
	}
	pub["capabilities"].(map[string]any)["extensions"] = nil
	ext["capabilities"].(map[string]any)["extensions"] = nil
	if !reflect.DeepEqual(pub, ext) {
		t.Errorf("extended card differs from the public card beyond the capsule extension")
	}
}

// TestMethods pins CARD-5's four method lists.
func TestMethods_CARD5(t *testing.T) {
	full := "SendMessage,SendStreamingMessage,SubscribeToTask,stream/watch,GetTask,ListTasks,CancelTask,session/stop"
	none := "stream/watch,GetTask,ListTasks,CancelTask,session/stop"
	tests := []struct {
		a    Acceptance
		auth bool
		want string
	}{
		{AcceptSingle, false, full},
		{AcceptQueue, true, full + ",GetExtendedAgentCard"},
		{AcceptNone, false, none},
		{AcceptNone, true, none + ",GetExtendedAgentCard"},
	}
	for _, tt := range tests {
		if got := strings.Join(Methods(tt.a, tt.auth), ","); got != tt.want {
			t.Errorf("Methods(%s, %v) = %s, want %s", tt.a, tt.auth, got, tt.want)
		}
	}
}

func TestBuildRefusesIncompleteConfig(t *testing.T) {
	for name, mutate := range map[string]func(*Config){
		"no name":        func(c *Config) { c.Name = "" },
		"no version":     func(c *Config) { c.Version = "" },
		"no url":         func(c *Config) { c.URL = "" },
		"no session":     func(c *Config) { c.SessionID = "" },
		"bad acceptance": func(c *Config) { c.Acceptance = "sometimes" },
	} {
		c := config(AcceptSingle, false)
		mutate(&c)
		if _, err := Build(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: Build() error = %v, want ErrConfig", name, err)
		}
	}
}

func TestToolsListed_CARD3(t *testing.T) {
	c := config(AcceptSingle, true)
	c.Tools = []string{"jsonl-line-count", "grep-tool"}
	cards, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	var got a2a.AgentCard
	if err := json.Unmarshal(cards.Extended, &got); err != nil {
		t.Fatal(err)
	}
	tools := got.Extension(a2a.ExtensionCapsule).Params["tools"]
	if !reflect.DeepEqual(tools, []any{"jsonl-line-count", "grep-tool"}) {
		t.Errorf("capsule tools = %v", tools)
	}
}

// TestPlanesListPeerFiles: the capsule extension's planes is [] unless
// exports.peer_files is declared, then ["peer_files"] (door.md §2; tools.md
// PFILE-1).
func TestPlanesListPeerFiles(t *testing.T) {
	for _, declared := range []bool{false, true} {
		c := config(AcceptQueue, false)
		c.PeerFiles = declared
		cards, err := Build(c)
		if err != nil {
			t.Fatal(err)
		}
		var got a2a.AgentCard
		if err := json.Unmarshal(cards.Public, &got); err != nil {
			t.Fatal(err)
		}
		want := []any{}
		if declared {
			want = []any{"peer_files"}
		}
		if planes := got.Extension(a2a.ExtensionCapsule).Params["planes"]; !reflect.DeepEqual(planes, want) {
			t.Errorf("declared %v: planes = %#v, want %#v", declared, planes, want)
		}
	}
}
