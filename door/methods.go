package door

import (
	"net/http"

	"github.com/murmur-go/mur/a2a"
)

// getTask answers GetTask (METH-GT-1).
func (s *Server) getTask(w http.ResponseWriter, r *http.Request, c *call) {
	id, o, err := taskID(a2a.MethodGetTask, c.env.params)
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	hl, ok := o.integer("historyLength")
	if !ok {
		s.answer(w, r, c.env.id, errorOf(a2a.InvalidParams("GetTask historyLength must be an integer")))
		return
	}
	t, err := s.cfg.Registry.Get(c.caller, id, hl)
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	s.answer(w, r, c.env.id, resultOf(t))
}

// listTasks answers ListTasks (METH-LT-1, METH-LT-2). The door checks each
// key's JSON type; the registry checks ranges, state names and page tokens.
func (s *Server) listTasks(w http.ResponseWriter, r *http.Request, c *call) {
	q, err := readListTasks(c.env.params)
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	resp, err := s.cfg.Registry.List(c.caller, q)
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	s.answer(w, r, c.env.id, resultOf(resp))
}

func readListTasks(params []byte) (a2a.ListTasksRequest, error) {
	var q a2a.ListTasksRequest
	o, ok := readObject(params)
	if !ok {
		return q, a2a.InvalidParams("ListTasks params must be an object")
	}
	bad := func(key, kind string) error { return a2a.InvalidParams("ListTasks " + key + " must be " + kind) }
	var s string
	if s, _, ok = o.str("contextId"); !ok {
		return q, bad("contextId", "a string")
	}
	q.ContextID = a2a.ContextID(s)
	if s, _, ok = o.str("status"); !ok {
		return q, bad("status", "a task state name")
	}
	q.Status = a2a.TaskState(s)
	if q.PageSize, ok = o.integer("pageSize"); !ok {
		return q, bad("pageSize", "an integer between 1 and 100")
	}
	if q.PageToken, _, ok = o.str("pageToken"); !ok {
		return q, bad("pageToken", "a string")
	}
	if q.HistoryLength, ok = o.integer("historyLength"); !ok {
		return q, bad("historyLength", "a non-negative integer")
	}
	if q.StatusTimestampAfter, _, ok = o.str("statusTimestampAfter"); !ok {
		return q, bad("statusTimestampAfter", "an RFC 3339 time")
	}
	if q.IncludeArtifacts, ok = o.boolean("includeArtifacts"); !ok {
		return q, bad("includeArtifacts", "a boolean")
	}
	return q, nil
}

// cancelTask answers CancelTask (METH-CT-1).
func (s *Server) cancelTask(w http.ResponseWriter, r *http.Request, c *call) {
	id, _, err := taskID(a2a.MethodCancelTask, c.env.params)
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	t, err := s.cfg.Registry.Cancel(c.caller, id)
	if err != nil {
		s.answer(w, r, c.env.id, errorOf(err))
		return
	}
	s.answer(w, r, c.env.id, resultOf(t))
}

// getExtendedAgentCard answers the extended card (METH-XC-1, CARD-7); params
// are ignored. Only an authenticated door serves it (step 10).
func (s *Server) getExtendedAgentCard(w http.ResponseWriter, r *http.Request, c *call) {
	s.answer(w, r, c.env.id, resultOf(raw(s.cards.Extended)))
}

// sessionStop answers session/stop (METH-STOP-1): every live task canceled,
// the ids this call moved, sorted; residue is always [] in this release.
// It neither ends the process nor closes the door.
func (s *Server) sessionStop(w http.ResponseWriter, r *http.Request, c *call) {
	ids := s.cfg.Registry.StopAll()
	if ids == nil {
		ids = []a2a.TaskID{}
	}
	s.answer(w, r, c.env.id, resultOf(a2a.StopSessionResult{SessionID: s.cfg.SessionID, Canceled: ids, Residue: []any{}}))
}
