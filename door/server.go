package door

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// Registry is the part of the session's task table the door answers from
// (ARCHITECTURE.md "The task table seam"); *tasktable.Registry satisfies it. The
// door never runs a task. Errors are *a2a.Error; anything else is answered
// -32603.
type Registry interface {
	Send(tasktable.SendRequest) (a2a.Task, *tasktable.Subscription, error)
	Get(c tasktable.Caller, id a2a.TaskID, historyLength *int) (a2a.Task, error)
	List(tasktable.Caller, a2a.ListTasksRequest) (a2a.ListTasksResponse, error)
	Cancel(tasktable.Caller, a2a.TaskID) (a2a.Task, error)
	Subscribe(tasktable.Caller, a2a.TaskID) (*tasktable.Subscription, error)
	StopAll() []a2a.TaskID
	Watch(lastEventID uint64) *tasktable.Watcher
	Counts() map[a2a.TaskState]int
}

var _ Registry = (*tasktable.Registry)(nil)

// Defaults of Config's optional fields.
const (
	DefaultMaxBody   = 8 << 20          // DOOR-5
	DefaultHeartbeat = 15 * time.Second // SSE-4
)

// Server timeouts (DOOR-7: none on writes of streaming or blocking calls);
// the body's is Config.BodyTimeout.
const (
	readHeaderTimeout = 10 * time.Second  // a client that trickles its headers is cut
	idleTimeout       = 120 * time.Second // keep-alive connections between requests
	writeTimeout      = 30 * time.Second  // per plain answer and per stream event
	shutdownGrace     = 500 * time.Millisecond
)

// Config configures a door.
type Config struct {
	// Registry is the session's task table (required).
	Registry Registry
	// Card holds what the Agent Cards say (agentcard.Config). Its Acceptance,
	// PeerTasks, Authenticated and SessionID are overwritten from the fields
	// below, so card and door never disagree.
	Card agentcard.Config
	// Acceptance is lifecycle.task_acceptance (required).
	Acceptance tasktable.Mode
	// PeerTasks is exports.peer_tasks.accept (PEER-2).
	PeerTasks bool
	// SessionID is the session answering here (required).
	SessionID string
	// Auth is nil for a public door (AUTH-1); else the door's credentials.
	Auth *Auth
	// Collectors are served at /metrics beside the door's own families, on
	// the door's registry (GO-6): the session's metrics, the Go and process
	// collectors. Registering one that clashes fails New.
	Collectors []prometheus.Collector
	// Logger receives wire detail at Debug and recovered faults at Error;
	// nil discards. Tokens never reach it.
	Logger *slog.Logger
	// MaxBody bounds request bodies (0: DefaultMaxBody).
	MaxBody int64
	// Heartbeat is the SSE heartbeat period (0: DefaultHeartbeat).
	Heartbeat time.Duration
	// MaxConnections caps the connections open at once (0:
	// DefaultMaxConnections); every request on one past it is answered 503
	// with Retry-After.
	MaxConnections int
	// BodyBytes caps the bytes of large request bodies held at once (0:
	// DefaultBodyBytes; never below MaxBody); a body that does not fit is
	// answered 503 with Retry-After instead of read.
	BodyBytes int64
	// BodyTimeout bounds the time a request takes to send its body after its
	// headers (0: DefaultBodyTimeout); past it the connection is closed.
	BodyTimeout time.Duration
	// Completions are the session's live delegations, which a delegated
	// child's completion reaches (PEER-5, tools.md DLG-7); nil: none awaits
	// one, so every completion is -31002.
	Completions Completions
	// PeerFiles is the session's peer plane when exports.peer_files is
	// declared (tools.md PFILE-5); nil answers every request to
	// /resources/peer no_peer_plane. It also sets the card's planes.
	PeerFiles PeerFiles
	// HarnessSession is true for a capsule under inference.transport:
	// process: it keeps harness sessions, but this build cannot forget one
	// yet, so x-murmur-forget-session is refused with process.md THR-5's
	// text rather than PEER-6's.
	HarnessSession bool
	// CardKey, when set, signs the public and extended cards (A2A §8.4):
	// each carries one EdDSA JWS whose protected header names CardKeyID.
	CardKey   ed25519.PrivateKey
	CardKeyID string
	// Threaded is true when the session maps A2A contexts to conversations
	// (lifecycle.conversation: threaded under inference.transport: process,
	// process.md THR-1): stream/watch's connection-ack says so (SSE-6).
	Threaded bool
}

// Completions is what a door needs of a session that delegates (PEER-5,
// tools.md DLG-7). Implementations are safe for concurrent use.
type Completions interface {
	// Complete hands msg, a completion's message, to the live delegation
	// named; false when no live delegation of this session has that id
	// (then the door answers -31002). A matched completion starts no task.
	Complete(delegationID string, msg a2a.Message) bool
	// Bearer returns the delegation a completion token was minted for, so
	// that on an authenticated door a child can post its completion (ORD-1
	// step 2); ok is false for any other bearer.
	Bearer(token string) (delegationID string, ok bool)
}

// Auth is an authenticated door's credentials (AUTH-2, AUTH-6).
type Auth struct {
	// Realm is the capsule name, used in www-authenticate (AUTH-7; required).
	Realm string
	// Tokens are the door tokens: MintTokens' result (operator first).
	Tokens []Token
	// Formation is set when this session is a formation member (GO-5).
	Formation *Formation
}

// Formation is what a member's door needs to check formation tokens (GO-5).
type Formation struct {
	ID        string            // frm_…
	Member    string            // this member's name
	PublicKey ed25519.PublicKey // the launch's public key, from the channel
}

// Server is one session's door. Serve it on a listener; stop it with
// Shutdown. Its methods are safe for concurrent use.
type Server struct {
	cfg     Config
	log     *slog.Logger
	cards   agentcard.Cards
	etag    string
	methods methodSet
	auth    *authenticator
	metrics *metrics
	router  *chi.Mux
	http    *http.Server
	conns   *conns  // open connections against MaxConnections
	bodies  *budget // large bodies held against BodyBytes

	// closing is canceled by Shutdown: streams and blocking calls write what
	// they hold and end (SSE-5).
	closing context.Context
	stop    context.CancelFunc
	once    sync.Once
}

// New validates cfg, builds the cards and the router. It starts nothing.
func New(cfg Config) (*Server, error) {
	if cfg.Registry == nil {
		return nil, errors.New("door: config has no registry")
	}
	if cfg.SessionID == "" {
		return nil, errors.New("door: config has no session id")
	}
	switch cfg.Acceptance {
	case tasktable.ModeNone, tasktable.ModeSingle, tasktable.ModeQueue:
	default:
		return nil, fmt.Errorf("door: acceptance %q is not none, single or queue", cfg.Acceptance)
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	if cfg.BodyBytes <= 0 {
		cfg.BodyBytes = DefaultBodyBytes
	}
	cfg.BodyBytes = max(cfg.BodyBytes, cfg.MaxBody)
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cc := cfg.Card
	cc.Acceptance = agentcard.Acceptance(cfg.Acceptance)
	cc.PeerTasks = cfg.PeerTasks
	cc.Authenticated = cfg.Auth != nil
	cc.SessionID = cfg.SessionID
	cc.PeerFiles = cfg.PeerFiles != nil
	cards, err := agentcard.Build(cc)
	if err != nil {
		return nil, fmt.Errorf("door: %w", err)
	}
	if cfg.CardKey != nil {
		if cards.Public, err = agentcard.Sign(cards.Public, cfg.CardKey, cfg.CardKeyID); err != nil {
			return nil, fmt.Errorf("door: %w", err)
		}
		if len(cards.Extended) > 0 { // an authenticated door's only
			if cards.Extended, err = agentcard.Sign(cards.Extended, cfg.CardKey, cfg.CardKeyID); err != nil {
				return nil, fmt.Errorf("door: %w", err)
			}
		}
	}
	s := &Server{cfg: cfg, log: cfg.Logger, cards: cards, etag: etagOf(cards.Public)}
	s.methods = newMethodSet(agentcard.Acceptance(cfg.Acceptance), cfg.Auth != nil)
	if cfg.Auth != nil {
		if s.auth, err = newAuthenticator(cfg.Auth, cfg.Completions); err != nil {
			return nil, err
		}
	}
	s.metrics = newMetrics(cfg.Registry)
	for _, c := range cfg.Collectors {
		if err := s.metrics.reg.Register(c); err != nil {
			return nil, fmt.Errorf("door config: a collector: %w", err)
		}
	}
	s.closing, s.stop = context.WithCancel(context.Background())
	s.router = s.routes()
	s.conns = &conns{max: int64(cfg.MaxConnections)}
	s.bodies = &budget{max: cfg.BodyBytes}
	s.http = &http.Server{
		Handler:           s.router,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ConnContext:       s.conns.connContext,
		ConnState:         s.conns.connState,
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug),
	}
	return s, nil
}

// Handler is the door as an http.Handler (for httptest and embedding).
func (s *Server) Handler() http.Handler { return s.router }

// Routes is the door's chi router, for chi.Walk (openapi/).
func (s *Server) Routes() chi.Routes { return s.router }

// Serve answers on ln until Shutdown; it returns http.ErrServerClosed then.
// A connection it ends with input unread closes in order (orderlyConn).
func (s *Server) Serve(ln net.Listener) error { return s.http.Serve(orderlyListener{ln}) }

// Shutdown stops accepting, lets every stream and blocking call write what it
// holds (grace 500 ms, SSE-5) and waits for the connections until ctx ends;
// then it closes what is left and returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.once.Do(s.stop)
	err := s.http.Shutdown(ctx)
	if err != nil {
		_ = s.http.Close()
	}
	return err
}
