package door

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// maxReferences bounds message.referenceTaskIds (METH-SM-2 (5)).
const maxReferences = 16

// sendParams is a SendMessage/SendStreamingMessage request the door read.
type sendParams struct {
	message           a2a.Message
	returnImmediately bool
	historyLength     *int
}

// readSend validates params in METH-SM-2's order, before any task lookup;
// every failure is -32602 but a raw or url part, which is -32005 (6).
func readSend(method string, params json.RawMessage) (sendParams, error) {
	bad := func(sentence string) (sendParams, error) { return sendParams{}, a2a.InvalidParams(sentence) }
	o, ok := readObject(params)
	if !ok {
		return bad(method + " params must be an object")
	}
	var sp sendParams
	// (1) params.message is an object; a bare message as params is refused.
	rawMsg, _ := o.get("message")
	msg, ok := readObject(rawMsg)
	if !ok || !o.has("message") {
		return bad(method + " requires params.message, an object")
	}
	// (2) messageId, role, parts.
	id, _, ok := msg.str("messageId")
	if !ok || id == "" {
		return bad("message.messageId must be a non-empty string")
	}
	role, _, ok := msg.str("role")
	if !ok || role != string(a2a.RoleUser) {
		return bad("message.role must be ROLE_USER")
	}
	rawParts, ok := scanArray(msgValue(msg, "parts"))
	if !ok || len(rawParts) == 0 {
		return bad("message.parts must be a non-empty array")
	}
	parts := make([]object, len(rawParts))
	for i, rp := range rawParts {
		p, ok := readObject(rp)
		if !ok || rp[0] != '{' {
			return bad("message.parts[" + strconv.Itoa(i) + "] must be an object")
		}
		parts[i] = p
	}
	// (3) each part sets exactly one of text, raw, url, data (data: null counts).
	for i, p := range parts {
		n := 0
		for _, k := range []string{"text", "raw", "url", "data"} {
			if _, set := p.get(k); set {
				n++
			}
		}
		if n != 1 {
			return bad("message.parts[" + strconv.Itoa(i) + "] must set exactly one of text, raw, url, data")
		}
	}
	// (4) text, raw, url, mediaType, filename are strings where present.
	for i, p := range parts {
		for _, k := range []string{"text", "raw", "url", "mediaType", "filename"} {
			if v, set := p.get(k); set && (len(v) == 0 || v[0] != '"') {
				return bad("message.parts[" + strconv.Itoa(i) + "]." + k + " must be a string")
			}
		}
	}
	// (5) taskId, contextId, then referenceTaskIds.
	taskID, _, ok := msg.str("taskId")
	if !ok {
		return bad("message.taskId must be a string")
	}
	contextID, _, ok := msg.str("contextId")
	if !ok {
		return bad("message.contextId must be a string")
	}
	refs, err := readReferences(msg)
	if err != nil {
		return sendParams{}, err
	}
	// (6) the first raw or url part.
	for i, p := range parts {
		_, isRaw := p.get("raw")
		if _, isURL := p.get("url"); isRaw || isURL {
			mt, _, _ := p.str("mediaType")
			return sendParams{}, a2a.ContentTypeNotSupported(i, mt)
		}
	}
	if err := readConfiguration(o, &sp); err != nil {
		return sendParams{}, err
	}
	sp.message = a2a.Message{MessageID: id, ContextID: a2a.ContextID(contextID), TaskID: a2a.TaskID(taskID),
		Role: a2a.RoleUser, ReferenceTaskIDs: refs, Parts: make([]a2a.Part, len(parts))}
	for i, p := range parts {
		sp.message.Parts[i] = readPart(p)
	}
	return sp, nil
}

// msgValue is a member's raw value, nil when absent.
func msgValue(o object, key string) []byte {
	v, _ := o.get(key)
	return v
}

// readReferences reads referenceTaskIds: non-empty strings, at most 16
// distinct, kept once each in order.
func readReferences(msg object) ([]a2a.TaskID, error) {
	if !msg.has("referenceTaskIds") {
		return nil, nil
	}
	elems, ok := scanArray(msgValue(msg, "referenceTaskIds"))
	if !ok {
		return nil, a2a.InvalidParams("message.referenceTaskIds must be an array of task ids")
	}
	var out []a2a.TaskID
	for _, e := range elems {
		if !isNull(e) && e[0] != '"' {
			return nil, a2a.InvalidParams("message.referenceTaskIds must be an array of task ids")
		}
		id, ok := decodeString(e)
		if !ok || id == "" {
			return nil, a2a.InvalidParams("message.referenceTaskIds must hold non-empty strings")
		}
		if !slices.Contains(out, a2a.TaskID(id)) {
			out = append(out, a2a.TaskID(id))
		}
	}
	if len(out) > maxReferences {
		return nil, a2a.InvalidParams("message.referenceTaskIds names more than 16 tasks")
	}
	return out, nil
}

// readConfiguration reads the two configuration keys the door uses
// (METH-SM-1); historyLength < 0 is -32602 (TASK-4).
func readConfiguration(o object, sp *sendParams) error {
	rawCfg, _ := o.get("configuration")
	cfg, ok := readObject(rawCfg)
	if !ok {
		return a2a.InvalidParams("configuration must be an object")
	}
	if sp.returnImmediately, ok = cfg.boolean("returnImmediately"); !ok {
		return a2a.InvalidParams("configuration.returnImmediately must be a boolean")
	}
	if sp.historyLength, ok = cfg.integer("historyLength"); !ok || sp.historyLength != nil && *sp.historyLength < 0 {
		return a2a.InvalidParams("configuration.historyLength must be a non-negative integer")
	}
	return nil
}

// readPart keeps a validated text or data part: its content, mediaType and
// filename; part metadata is ignored.
func readPart(p object) a2a.Part {
	var part a2a.Part
	if _, isText := p.get("text"); isText {
		t, _, _ := p.str("text")
		part.Text = &t
	} else {
		data, _ := p.get("data")
		part.Data = append(json.RawMessage{}, data...)
	}
	part.MediaType, _, _ = p.str("mediaType")
	part.Filename, _, _ = p.str("filename")
	return part
}

// sendMessage answers SendMessage (METH-SM): a new task or a reply, held
// until the task is terminal or INPUT_REQUIRED unless returnImmediately
// (METH-SM-4). A client that leaves does not affect the task.
func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request, c *call) {
	sp, err := readSend(a2a.MethodSendMessage, c.env.params)
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	t, sub, err := s.cfg.Registry.Send(tasktable.SendRequest{Caller: c.caller, Prov: provenance(r), Message: sp.message,
		Subscribe: !sp.returnImmediately, HistoryLength: sp.historyLength})
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	if sub != nil && !t.Status.State.Terminal() {
		var gone bool
		if t, gone = s.await(r, c.caller, t, sub, sp.historyLength); gone {
			return
		}
	} else if sub != nil {
		sub.Close()
	}
	s.answer(w, r, c.env.id, resultOf(a2a.SendMessageResponse{Task: &t}))
}

// await holds a blocking SendMessage until its task is terminal or
// INPUT_REQUIRED, or the door shuts down, then reads the task as it stands.
// A subscription cut for lag is reopened. gone reports a client that left.
func (s *Server) await(r *http.Request, c tasktable.Caller, t a2a.Task, sub *tasktable.Subscription, hl *int) (a2a.Task, bool) {
	defer func() { sub.Close() }()
	for {
	events:
		for {
			select {
			case _, open := <-sub.Events():
				if !open {
					break events
				}
			case <-r.Context().Done():
				return t, true
			case <-s.closing.Done():
				return s.current(c, t, hl), false
			}
		}
		if !sub.Lagged() {
			return s.current(c, t, hl), false
		}
		next, err := s.cfg.Registry.Subscribe(c, t.ID)
		if err != nil { // it ended meanwhile
			return s.current(c, t, hl), false
		}
		sub = next
		if first, ok := <-sub.Events(); ok && first.Task != nil && first.Task.Status.State.Interrupted() {
			return s.current(c, t, hl), false // it stopped for input meanwhile (METH-SM-4)
		}
	}
}

// current re-reads a task; if it cannot be read, the last snapshot stands.
func (s *Server) current(c tasktable.Caller, t a2a.Task, hl *int) a2a.Task {
	if now, err := s.cfg.Registry.Get(c, t.ID, hl); err == nil {
		return now
	}
	return t
}
