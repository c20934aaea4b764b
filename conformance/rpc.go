package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/murmur-go/mur/a2a"
)

// expectVersionRefused checks a -32009 answer for the version sent (RPC-3).
func (s *suite) expectVersionRefused(a *rpcAnswer, sent string) error {
	if err := s.expectA2A(a, -32009, "VERSION_NOT_SUPPORTED", map[string]string{"requestedVersion": sent, "supportedVersions": "1.0"}); err != nil {
		return err
	}
	if want := "A2A version '" + sent + "' is not supported; this agent speaks 1.0"; s.murmur && *a.err.Message != want {
		return failf("message %q, want %q (RPC-3)", *a.err.Message, want)
	}
	return nil
}

// rpcVersionAbsent: RPC-3 — no header is read as 0.3. A door that also
// speaks 0.3 reads GetTask as an unknown 0.3 method (-32601); a v1.0-only
// door, and every murmur door, answers -32009.
func rpcVersionAbsent(ctx context.Context, s *suite) error {
	a, err := s.rpc(ctx, s.getTaskBody(), hdr{a2a.HeaderVersion: ""})
	if err != nil {
		return err
	}
	if !s.murmur && a.err != nil && *a.err.Code == -32601 {
		return nil
	}
	return s.expectVersionRefused(a, "")
}

// rpcVersionWrong: RPC-3 — a version the door does not speak is -32009, one
// plain JSON body also on a streaming method.
func rpcVersionWrong(ctx context.Context, s *suite) error {
	sent := []string{"9.9"}
	if s.murmur {
		sent = append(sent, "0.3", "1", "1.1", "1.0x")
	}
	for _, v := range sent {
		a, err := s.rpc(ctx, s.getTaskBody(), hdr{a2a.HeaderVersion: v})
		if err != nil {
			return fmt.Errorf("A2A-Version %s: %w", v, err)
		}
		if err := s.expectVersionRefused(a, v); err != nil {
			return fmt.Errorf("A2A-Version %s: %w", v, err)
		}
	}
	if s.card.Capabilities.Streaming {
		st, a, err := s.openStream(ctx, a2a.MethodSendStreamingMessage, s.sendParams(s.cfg.TaskText, false), hdr{a2a.HeaderVersion: "9.9"})
		if err != nil {
			return err
		}
		if st != nil {
			st.Close()
			return failf("SendStreamingMessage with A2A-Version 9.9 opened a stream, want one -32009 JSON body")
		}
		if err := s.expectVersionRefused(a, "9.9"); err != nil {
			return fmt.Errorf("SendStreamingMessage: %w", err)
		}
	}
	if !s.murmur {
		return nil
	}
	return s.twoVersionLines(ctx)
}

// rpcVersionAccepted: RPC-3 — "1.0" is served; on a murmur door also
// "1.0.<digits>", a padded value, and the A2A-Version query parameter when
// no header line is sent.
func rpcVersionAccepted(ctx context.Context, s *suite) error {
	forms := []string{"1.0"}
	if s.murmur {
		forms = append(forms, "1.0.7", " 1.0 ")
	}
	for _, v := range forms {
		a, err := s.rpc(ctx, s.getTaskBody(), hdr{a2a.HeaderVersion: v})
		if err != nil {
			return fmt.Errorf("A2A-Version %q: %w", v, err)
		}
		if err := s.expectA2A(a, -32001, "TASK_NOT_FOUND", nil); err != nil {
			return fmt.Errorf("A2A-Version %q (GetTask on an unknown id): %w", v, err)
		}
	}
	if !s.murmur {
		return nil
	}
	ex, err := s.do(ctx, http.MethodPost, "/?A2A-Version=1.0", s.getTaskBody(), hdr{a2a.HeaderVersion: ""})
	if err != nil {
		return err
	}
	a, err := parseAnswer(ex)
	if err != nil {
		return fmt.Errorf("A2A-Version query parameter: %w", err)
	}
	if err := s.expectA2A(a, -32001, "TASK_NOT_FOUND", nil); err != nil {
		return fmt.Errorf("A2A-Version query parameter without a header (RPC-3): %w", err)
	}
	return nil
}

// rpcParseError: RPC-2, ORD-1 step 6.
func rpcParseError(ctx context.Context, s *suite) error {
	bodies := []string{`{"jsonrpc":"2.0","id":1,`}
	if s.murmur {
		bodies = append(bodies, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\",\"params\":{\"id\":\"\xff\"}}")
	}
	for _, b := range bodies {
		a, err := s.rpc(ctx, []byte(b), nil)
		if err != nil {
			return fmt.Errorf("body %q: %w", b, err)
		}
		if err := s.expectStandard(a, -32700, "Invalid JSON payload"); err != nil {
			return fmt.Errorf("body %q: %w", b, err)
		}
		if err := a.expectID("null"); err != nil {
			return fmt.Errorf("body %q: %w", b, err)
		}
	}
	return nil
}

// rpcInvalidRequest: RPC-1, ORD-1 step 7. JSON-RPC 2.0 answers these with id
// null; door.md echoes an id that is itself valid, which a murmur door must.
func rpcInvalidRequest(ctx context.Context, s *suite) error {
	cases := []struct{ body, echo string }{
		{`{"jsonrpc":"1.0","id":7,"method":"GetTask","params":{}}`, "7"},
		{`{"id":7,"method":"GetTask","params":{}}`, "7"},
		{`{"jsonrpc":"2.0","id":7,"method":5}`, "7"},
		{`{"jsonrpc":"2.0","id":7}`, "7"},
		{`{"jsonrpc":"2.0","id":7,"method":"GetTask","params":"tsk"}`, "7"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"GetTask","params":{}}`, "null"},
		{`{"jsonrpc":"2.0","id":{"n":1},"method":"GetTask","params":{}}`, "null"},
		{`"GetTask"`, "null"},
	}
	if s.murmur {
		cases = append(cases, struct{ body, echo string }{`{"jsonrpc":"2.0","id":null,"method":"GetTask","params":{}}`, "null"})
	}
	for _, c := range cases {
		a, err := s.rpc(ctx, []byte(c.body), nil)
		if err != nil {
			return fmt.Errorf("body %s: %w", c.body, err)
		}
		if err := s.expectStandard(a, -32600, "Request payload validation error"); err != nil {
			return fmt.Errorf("body %s: %w", c.body, err)
		}
		if err := a.expectID(c.echo); err != nil && (s.murmur || string(a.id) != "null") {
			return fmt.Errorf("body %s: %w", c.body, err)
		}
	}
	return nil
}

// rpcBatch: RPC-1 — door.md's rule; JSON-RPC 2.0 itself allows batches.
func rpcBatch(ctx context.Context, s *suite) error {
	if !s.murmur {
		return skipf("refusing batches is door.md's rule (RPC-1), and the card declares no murmur door extension")
	}
	a, err := s.rpc(ctx, []byte("["+string(s.getTaskBody())+"]"), nil)
	if err != nil {
		return err
	}
	if err := s.expectStandard(a, -32600, "Request payload validation error"); err != nil {
		return err
	}
	return a.expectID("null")
}

// rpcNotification: RPC-1 — a request without id is not answered; a murmur
// door answers 204 with an empty body.
func rpcNotification(ctx context.Context, s *suite) error {
	body := []byte(`{"jsonrpc":"2.0","method":"GetTask","params":{"id":"` + unknownTaskID + `"}}`)
	ex, err := s.do(ctx, http.MethodPost, "/", body, nil)
	if err != nil {
		return err
	}
	if ex.status/100 != 2 || len(ex.body) != 0 {
		return failf("HTTP %d %s, want no JSON-RPC answer", ex.status, snippet(ex.body))
	}
	if s.murmur && ex.status != http.StatusNoContent {
		return failf("HTTP %d, want 204 (RPC-1)", ex.status)
	}
	return nil
}

// rpcMethodNotFound: RPC-2, ORD-1 step 10.
func rpcMethodNotFound(ctx context.Context, s *suite) error {
	a, err := s.call(ctx, "conformance/no-such-method", map[string]any{}, nil)
	if err != nil {
		return err
	}
	return s.expectStandard(a, -32601, "Method not found")
}

// rpcA2A03Names: RPC-2 — v1.0 renamed every method; the 0.3 names are unknown.
func rpcA2A03Names(ctx context.Context, s *suite) error {
	for _, m := range []string{"message/send", "message/stream", "tasks/get", "tasks/list", "tasks/cancel",
		"tasks/resubscribe", "tasks/pushNotificationConfig/set", "agent/getAuthenticatedExtendedCard"} {
		a, err := s.call(ctx, m, map[string]any{"id": unknownTaskID}, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		if err := s.expectStandard(a, -32601, "Method not found"); err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
	}
	return nil
}

// rpcIDEcho: RPC-1, GO-3 — string, zero, negative and large integer ids come
// back with their JSON type and value. RFC 8259 §6 makes only integers in
// [-(2^53)+1, 2^53-1] interoperable, so 2^53-1 must come back exactly from
// every door; 2^53+1, which no IEEE double holds, must come back exactly from
// a murmur door (GO-3 echoes the raw id bytes) and, from another door, as a
// number equal to it as a double (a JavaScript door answers 2^53).
func rpcIDEcho(ctx context.Context, s *suite) error {
	for _, id := range []string{`"conformance-id"`, `""`, `0`, `-7`, maxExactID, pastExactID} {
		body := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"GetTask","params":{"id":"` + unknownTaskID + `"}}`)
		a, err := s.rpc(ctx, body, nil)
		if err != nil {
			return fmt.Errorf("id %s: %w", id, err)
		}
		if id == pastExactID && !s.murmur {
			if err := a.expectIDAsDouble(id); err != nil {
				return err
			}
			continue
		}
		if err := a.expectID(id); err != nil {
			return err
		}
	}
	a, err := s.call(ctx, a2a.MethodListTasks, map[string]any{}, nil)
	if err != nil {
		return err
	}
	if _, err := a.ok(); err != nil {
		return fmt.Errorf("ListTasks: %w", err)
	}
	return nil
}

// The largest integer id every JSON parser holds exactly (2^53-1), and the
// next odd one past it (2^53+1), which an IEEE double rounds to 2^53.
const (
	maxExactID  = "9007199254740991"
	pastExactID = "9007199254740993"
)

// expectIDAsDouble checks the answer's id is a JSON number equal to id when
// both are read as IEEE doubles (RFC 8259 §6).
func (a *rpcAnswer) expectIDAsDouble(id string) error {
	want, _ := strconv.ParseFloat(id, 64)
	got, err := strconv.ParseFloat(string(a.id), 64)
	if err != nil || got != want || !json.Valid(a.id) {
		return failf("id %s, want %s or the same number as a double (RFC 8259 §6)", a.id, id)
	}
	return nil
}

// rpcParamsArray: ORD-1 step 13 — A2A params are objects. JSON-RPC 2.0
// allows by-position params, so another door may call the request invalid
// (-32600); a murmur door answers -32602.
func rpcParamsArray(ctx context.Context, s *suite) error {
	a, err := s.call(ctx, a2a.MethodGetTask, []any{unknownTaskID}, nil)
	if err != nil {
		return err
	}
	if !s.murmur && a.err != nil && *a.err.Code == -32600 {
		return nil
	}
	return s.expectStandard(a, -32602, "")
}

// twoVersionLines: RPC-3 — more than one A2A-Version line is -32009, the
// values joined with ", ".
func (s *suite) twoVersionLines(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/", bytes.NewReader(s.getTaskBody()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if s.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.Token)
	}
	req.Header.Add(a2a.HeaderVersion, "1.0")
	req.Header.Add(a2a.HeaderVersion, "1.0")
	ex, err := s.send(req)
	if err != nil {
		return err
	}
	a, err := parseAnswer(ex)
	if err != nil {
		return fmt.Errorf("two A2A-Version lines: %w", err)
	}
	if err := s.expectVersionRefused(a, "1.0, 1.0"); err != nil {
		return fmt.Errorf("two A2A-Version lines: %w", err)
	}
	return nil
}
