package conformance

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/murmur-go/mur/a2a"
)

// murmurWatch: SSE-6..9 — connection-ack first, unnumbered; once the door
// has accepted a task, the replay holds numbered frames of known types.
func murmurWatch(ctx context.Context, s *suite) error {
	if !s.murmur || !s.serves(a2a.MethodStreamWatch) {
		return skipf("the card's door extension does not list stream/watch")
	}
	st, a, err := s.openStream(ctx, a2a.MethodStreamWatch, map[string]any{}, nil)
	if err != nil {
		return err
	}
	if a != nil {
		return failf("a JSON body %s, want an event stream", snippet(a.ex.body))
	}
	defer st.Close()
	if err := st.checkHeaders(); err != nil {
		return err
	}
	f, err := st.nextFrame()
	if err != nil {
		return err
	}
	var ack map[string]any
	_ = json.Unmarshal([]byte(f.data), &ack)
	mode, _ := ack["conversation_mode"].(string)
	if f.event != a2a.FrameConnectionAck || f.id != "" || ack["role"] != "observer" || mode != "stateless" && mode != "threaded" {
		return failf("first frame id %q event %q data %s, want an unnumbered connection-ack with role observer (SSE-6)", f.id, f.event, f.data)
	}
	if !s.accepted {
		return nil // an empty replay: nothing more is certain to come
	}
	f, err = st.nextFrame()
	if err != nil {
		return err
	}
	if f.event == a2a.FrameGap {
		var gap map[string]any
		_ = json.Unmarshal([]byte(f.data), &gap)
		if _, ok := gap["first_available_id"].(float64); !ok || f.id != "" {
			return failf("gap frame id %q data %s, want unnumbered {\"first_available_id\":N} (SSE-8)", f.id, f.data)
		}
		if f, err = st.nextFrame(); err != nil {
			return err
		}
	}
	if n, err := strconv.ParseUint(f.id, 10, 64); err != nil || n == 0 {
		return failf("replayed frame %s has id %q, want a number from 1 (SSE-7)", f.event, f.id)
	}
	if !slices.Contains([]string{a2a.FrameStatus, a2a.FrameArtifact, a2a.FrameText, "thinking"}, f.event) {
		return failf("replayed frame event %q, want a numbered frame type (SSE-7)", f.event)
	}
	if f.event != a2a.FrameStatus {
		return nil
	}
	var sf struct {
		ID        string `json:"id"`
		ContextID string `json:"context_id"`
		Status    struct {
			State string `json:"state"`
		} `json:"status"`
		Final *bool `json:"final"`
	}
	words := []string{"submitted", "working", "input-required", "completed", "failed", "canceled", "rejected"}
	if err := json.Unmarshal([]byte(f.data), &sf); err != nil || sf.ID == "" || sf.ContextID == "" || sf.Final == nil ||
		!slices.Contains(words, sf.Status.State) {
		return failf("status frame %s, want id, context_id, status.state as a murmur word and final (SSE-8)", f.data)
	}
	return nil
}
