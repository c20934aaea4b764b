package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// The CARD-5 methods lists, without GetExtendedAgentCard (added on an
// authenticated door).
var (
	methodsAccepting = []string{a2a.MethodSendMessage, a2a.MethodSendStreamingMessage, a2a.MethodSubscribeToTask,
		a2a.MethodStreamWatch, a2a.MethodGetTask, a2a.MethodListTasks, a2a.MethodCancelTask, a2a.MethodSessionStop}
	methodsNone = []string{a2a.MethodStreamWatch, a2a.MethodGetTask, a2a.MethodListTasks, a2a.MethodCancelTask,
		a2a.MethodSessionStop}
	// frameOrder is the stream extension's frame order (SSE-8), "thinking" [LATER] included.
	frameOrder = []string{"status", "artifact", "text", "thinking", "gap", "lagged", "connection-ack", "capsule-closed"}
)

// The CARD-3 extension descriptions.
const (
	descDoor    = "Every JSON-RPC method this door answers, including the murmur methods stream/watch and session/stop, which are not A2A methods, and whether it accepts tasks from peer capsules."
	descCapsule = "The session answering this address and what the capsule may do. Served only to authenticated callers once the door authenticates."
	descStream  = "Every server-sent event type this capsule's stream/watch connections can write. SendStreamingMessage and SubscribeToTask write A2A StreamResponse events only."
)

// murmurCard: CARD-1, CARD-3, CARD-5 — checked when the card declares the
// murmur door extension.
func murmurCard(_ context.Context, s *suite) error {
	if !s.murmur {
		return skipf("the card declares no murmur door extension")
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(s.rawCard, &raw)
	for _, k := range []string{"provider", "documentationUrl", "iconUrl"} {
		if _, has := raw[k]; has {
			return failf("the card has %q, which a murmur card never writes (CARD-1)", k)
		}
	}
	if want := "Murmur capsule " + s.card.Name + " " + s.card.Version; s.card.Description != want {
		return failf("description %q, want %q (CARD-1)", s.card.Description, want)
	}
	modes := "text/plain,application/json"
	if strings.Join(s.card.DefaultInputModes, ",") != modes || strings.Join(s.card.DefaultOutputModes, ",") != modes {
		return failf("default modes %v / %v, want [text/plain application/json] (CARD-1)", s.card.DefaultInputModes, s.card.DefaultOutputModes)
	}
	if err := checkExtensions(s.card, !s.requiresAuth()); err != nil {
		return err
	}
	return checkDoorExtension(s)
}

// checkExtensions checks the extensions' order, descriptions and params
// (CARD-3); withCapsule says whether the capsule extension belongs on card.
func checkExtensions(card *a2a.AgentCard, withCapsule bool) error {
	var uris []string
	for _, ext := range card.Capabilities.Extensions {
		uris = append(uris, ext.URI)
	}
	want := []string{a2a.ExtensionDoor, a2a.ExtensionStream}
	if withCapsule {
		want = []string{a2a.ExtensionDoor, a2a.ExtensionCapsule, a2a.ExtensionStream}
	}
	if !slices.Equal(uris, want) {
		return failf("extensions %v, want %v (CARD-3)", uris, want)
	}
	for _, ext := range card.Capabilities.Extensions {
		desc := map[string]string{a2a.ExtensionDoor: descDoor, a2a.ExtensionCapsule: descCapsule, a2a.ExtensionStream: descStream}[ext.URI]
		if ext.Description != desc {
			return failf("extension %s description %q, want %q (CARD-3)", ext.URI, ext.Description, desc)
		}
	}
	if withCapsule {
		if err := checkCapsuleParams(card.Extension(a2a.ExtensionCapsule).Params); err != nil {
			return err
		}
	}
	frames, ok := stringList(card.Extension(a2a.ExtensionStream).Params["frames"])
	if !ok || !inOrder(frames, frameOrder) {
		return failf("stream extension frames %v, want frame types in the SSE-8 order %v", card.Extension(a2a.ExtensionStream).Params["frames"], frameOrder)
	}
	for _, need := range []string{"status", "connection-ack", "capsule-closed"} {
		if !slices.Contains(frames, need) {
			return failf("stream extension frames %v lack %q (SSE-6, SSE-8)", frames, need)
		}
	}
	return nil
}

func checkCapsuleParams(p map[string]any) error {
	if err := onlyKeys(p, "sessionId", "tools", "shell", "network", "planes"); err != nil {
		return failf("capsule extension params: %v (CARD-3)", err)
	}
	sid, _ := p["sessionId"].(string)
	if h, ok := strings.CutPrefix(sid, a2a.PrefixSession); !ok || !a2a.IsHex32(h) {
		return failf("capsule extension sessionId %q, want ses_<32 hex> (CARD-3)", sid)
	}
	_, tools := p["tools"].([]any)
	_, shell := p["shell"].(bool)
	_, network := p["network"].(bool)
	_, planes := p["planes"].([]any)
	if !tools || !shell || !network || !planes {
		return failf("capsule extension params %v, want tools and planes arrays, shell and network booleans (CARD-3)", p)
	}
	return nil
}

// checkDoorExtension: CARD-3 params and the CARD-5 methods list.
func checkDoorExtension(s *suite) error {
	p := s.card.Extension(a2a.ExtensionDoor).Params
	if err := onlyKeys(p, "methods", "peerTasks"); err != nil {
		return failf("door extension params: %v (CARD-3)", err)
	}
	if _, ok := p["peerTasks"].(bool); !ok {
		return failf("door extension peerTasks %v, want a boolean (CARD-3)", p["peerTasks"])
	}
	got, ok := stringList(p["methods"])
	if !ok {
		return failf("door extension methods %v, want an array of method names", p["methods"])
	}
	for _, row := range [][]string{methodsAccepting, methodsNone} {
		want := row
		if s.requiresAuth() {
			want = append(slices.Clone(row), a2a.MethodGetExtendedAgentCard)
		}
		if slices.Equal(got, want) {
			return nil
		}
	}
	return failf("door extension methods %v, want one of the CARD-5 lists for a %s door", got, map[bool]string{true: "token", false: "public"}[s.requiresAuth()])
}

// onlyKeys checks m has every key and no other.
func onlyKeys(m map[string]any, keys ...string) error {
	for k := range m {
		if !slices.Contains(keys, k) {
			return fmt.Errorf("unexpected key %q", k)
		}
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return fmt.Errorf("missing key %q", k)
		}
	}
	return nil
}

// stringList reads a JSON array of strings.
func stringList(v any) ([]string, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// inOrder reports whether every element of got appears in order, once each.
func inOrder(got, order []string) bool {
	i := 0
	for _, g := range got {
		for i < len(order) && order[i] != g {
			i++
		}
		if i == len(order) {
			return false
		}
		i++
	}
	return true
}
