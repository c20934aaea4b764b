package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// DefaultTaskText is the task text the suite sends when Config.TaskText is "".
const DefaultTaskText = "This is an A2A conformance check. Reply with one short sentence."

// DefaultCheckTimeout bounds one check when Config.CheckTimeout is 0.
const DefaultCheckTimeout = 60 * time.Second

// Config says which door to judge and how.
type Config struct {
	// URL is the door, e.g. "http://127.0.0.1:41873" (required).
	URL string
	// Token, when set, is a door token that reaches every method (mur's
	// operator token): it is sent as a bearer token on JSON-RPC requests and
	// turns on the auth checks. Without it, a door whose card requires a
	// token gets its JSON-RPC checks skipped.
	Token string
	// ScopedToken, optional, is a door credential that lacks at least one
	// method's scope (door.md AUTH-2, AUTH-3). It turns on auth.scoped.
	ScopedToken string
	// MemberToken, optional, is a formation member token minted for this
	// door (door.md AUTH-6, GO-5). It turns on the formation.* checks of a
	// murmur door; formation.own-tasks also needs Token.
	MemberToken string
	// HTTPClient sends every request; nil uses a plain client.
	HTTPClient *http.Client
	// TaskText is the text of the tasks the suite starts (DefaultTaskText when "").
	TaskText string
	// SlowTaskText, optional, is a task text the door's agent keeps working on
	// until the task is canceled. Checks that need a live task use it; without
	// it they try TaskText and skip when the task ends first. mur's own tests
	// set it to the text their executor holds.
	SlowTaskText string
	// CheckTimeout bounds each check (DefaultCheckTimeout when 0): a door that
	// never answers, or never closes a stream, fails the check then.
	CheckTimeout time.Duration
}

// check is one entry of the suite.
type check struct {
	id, title string
	tck       []string // the A2A TCK's requirement IDs, where one corresponds
	// rpc marks a check that needs the JSON-RPC door: skipped when the card
	// requires a token and none was given.
	rpc bool
	run func(ctx context.Context, s *suite) error
}

// skipError makes a check SKIP instead of FAIL.
type skipError struct{ why string }

func (e *skipError) Error() string { return e.why }

func skipf(format string, args ...any) error { return &skipError{why: fmt.Sprintf(format, args...)} }

func failf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// IDs returns every check id in suite order.
func IDs() []string {
	var ids []string
	for _, c := range checks() {
		ids = append(ids, c.id)
	}
	return ids
}

// Run judges the door at cfg.URL and returns one Result per check, in suite
// order. It never panics on a door's answer; ctx ends the run early, the
// remaining checks then fail with ctx's error.
func Run(ctx context.Context, cfg Config) []Result {
	var out []Result
	runChecks(ctx, cfg, func(r Result) { out = append(out, r) })
	return out
}

// RunT runs the suite as subtests of t, one per check id: a FAIL is t.Error,
// a WARN is t.Log, a SKIP is t.Skip.
func RunT(t *testing.T, cfg Config) {
	t.Helper()
	runChecks(t.Context(), cfg, func(r Result) {
		t.Run(r.ID, func(t *testing.T) {
			switch r.Status {
			case Fail:
				t.Errorf("%s: %s", r.Title, r.Why)
			case Warn:
				t.Logf("WARN %s: %s", r.Title, r.Why)
			case Skip:
				t.Skipf("%s: %s", r.Title, r.Why)
			}
		})
	})
}

func runChecks(ctx context.Context, cfg Config, emit func(Result)) {
	s, err := newSuite(cfg)
	all := checks()
	if err != nil {
		emit(Result{ID: all[0].id, Title: all[0].title, TCK: all[0].tck, Status: Fail, Why: err.Error()})
		for _, c := range all[1:] {
			emit(Result{ID: c.id, Title: c.title, TCK: c.tck, Status: Skip, Why: "the suite could not start"})
		}
		return
	}
	for i, c := range all {
		r := Result{ID: c.id, Title: c.title, TCK: c.tck}
		switch {
		case i > 0 && s.card == nil:
			r.Status, r.Why = Skip, "no Agent Card ("+s.cardWhy+")"
		case c.rpc && s.locked():
			r.Status, r.Why = Skip, "the card requires a token and none was given"
		default:
			r.Status, r.Why = s.runOne(ctx, c)
			s.release(ctx)
		}
		emit(r)
	}
}

// runOne runs a check under its timeout and turns its error into an outcome.
func (s *suite) runOne(ctx context.Context, c check) (st Status, why string) {
	cctx, cancel := context.WithTimeoutCause(ctx, s.timeout, errCheckTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			st, why = Fail, fmt.Sprintf("the check itself failed: %v", p)
		}
	}()
	s.warnings = nil
	err := c.run(cctx, s)
	var se *skipError
	switch {
	case err == nil && len(s.warnings) > 0:
		return Warn, strings.Join(s.warnings, "; ")
	case err == nil:
		return Pass, ""
	case errors.As(err, &se):
		return Skip, se.why
	case errors.Is(context.Cause(cctx), errCheckTimeout):
		return Fail, fmt.Sprintf("no answer within %s: %v", s.timeout, err)
	}
	return Fail, err.Error()
}

var errCheckTimeout = errors.New("check timed out")

// warnf records that the running check found a door missing a SHOULD; the
// check goes on, and ends WARN unless it fails or skips.
func (s *suite) warnf(format string, args ...any) {
	s.warnings = append(s.warnings, fmt.Sprintf(format, args...))
}

// suite is one run's state: the door's card, the client, the tasks made so far.
type suite struct {
	cfg      Config
	base     string // URL without a trailing "/"
	hc       *http.Client
	timeout  time.Duration
	ids      int64    // raw request ids (nextID)
	warnings []string // the running check's missed SHOULDs (warnf)

	card    *a2a.AgentCard // nil until card.fetch passed far enough
	rawCard []byte
	cardWhy string
	// cardHeader is the card answer's headers (card.cache).
	cardHeader http.Header
	murmur     bool // the card declares the murmur door extension

	ended    *a2a.Task // a task the door holds in a terminal state (endedTask)
	endedErr error
	ctxTask  *a2a.Task    // the returnImmediately task, sent with its own context id
	accepted bool         // the door accepted at least one task this run
	started  []a2a.TaskID // tasks the suite started and has not seen end (release)
}

func newSuite(cfg Config) (*suite, error) {
	if cfg.TaskText == "" {
		cfg.TaskText = DefaultTaskText
	}
	s := &suite{cfg: cfg, base: strings.TrimRight(cfg.URL, "/"), hc: cfg.HTTPClient, timeout: cfg.CheckTimeout}
	if s.hc == nil {
		s.hc = &http.Client{}
	}
	if s.timeout <= 0 {
		s.timeout = DefaultCheckTimeout
	}
	if u, err := url.Parse(s.base); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%q is not a door URL (want http://<host>:<port>)", cfg.URL)
	}
	s.cardWhy = "card.fetch did not run"
	return s, nil
}

// locked reports whether the card requires a token the run does not have.
func (s *suite) locked() bool { return s.cfg.Token == "" && s.requiresAuth() }

// requiresAuth reports whether the card declares a security requirement.
func (s *suite) requiresAuth() bool { return s.card != nil && len(s.card.SecurityRequirements) > 0 }

// doorMethods returns the murmur door extension's methods list, or nil.
func (s *suite) doorMethods() []string {
	ext := s.card.Extension(a2a.ExtensionDoor)
	if ext == nil {
		return nil
	}
	list, _ := ext.Params["methods"].([]any)
	var out []string
	for _, m := range list {
		if name, ok := m.(string); ok {
			out = append(out, name)
		}
	}
	return out
}

// serves reports whether the door claims to serve method: listed by the door
// extension when there is one, else true for every A2A method.
func (s *suite) serves(method string) bool {
	if s.card.Extension(a2a.ExtensionDoor) == nil {
		return true
	}
	for _, m := range s.doorMethods() {
		if m == method {
			return true
		}
	}
	return false
}
