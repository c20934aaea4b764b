package spawn

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/formation"
	"github.com/murmur-go/mur/runtime/wire"
)

// HelloWait is how long a child waits for its lifeline's first line.
const HelloWait = 10 * time.Second

// PostTimeout bounds the completion's post to the parent's door.
const PostTimeout = 5 * time.Second

// ErrSpawnerEnded is the cancel cause of work cancelled because the spawner
// lifeline closed (DLG-6; capsule.md SES-5 `canceled: spawner ended`).
var ErrSpawnerEnded = errors.New("spawner ended")

// Link is a delegated child's tie to the capsule that spawned it (tools.md
// DLG-3, DLG-6, DLG-7). Its methods are safe for concurrent use.
type Link struct {
	Handle
	// Depth is this session's depth below its top-level capsule (from 1).
	Depth int
	// DoorToken is the token the parent reaches this session's door with,
	// when the door is authenticated (handed over on the lifeline).
	DoorToken string

	completionToken string
	life            *os.File
	ended           chan struct{} // closed at the lifeline's EOF
	wg              sync.WaitGroup

	mu     sync.Mutex
	closed bool
}

// Join reads this process's spawner environment through getenv (capsule.md
// MAN-4 step 0). It returns nil, nil for a capsule nobody delegated to (no
// MURMUR_SPAWNER, no MURMUR_SPAWNER_LIFELINE), an E-RUN-020 diagnostic when
// either cannot be used — before anything is written — or the Link, whose
// lifeline it watches from then on.
func Join(ctx context.Context, getenv func(string) string) (*Link, error) {
	hv, lv := strings.TrimSpace(getenv(EnvSpawner)), strings.TrimSpace(getenv(EnvLifeline))
	switch {
	case hv == "" && lv == "":
		return nil, nil
	case hv == "":
		return nil, diag.RunSpawnerBad("it is not set, but " + EnvLifeline + " is")
	case lv == "":
		return nil, diag.RunSpawnerLifelineBad("it is not set, but " + EnvSpawner + " is")
	}
	h, why := parseHandle(hv)
	if why != "" {
		return nil, diag.RunSpawnerBad(why)
	}
	fd, why := formation.ReadEnd(lv)
	if why != "" {
		return nil, diag.RunSpawnerLifelineBad(why)
	}
	f := formation.OpenReadEnd(fd, "spawner-lifeline")
	br := bufio.NewReaderSize(f, wire.MaxSpawnerHello)
	line, err := firstLine(ctx, f, br)
	if err != nil {
		f.Close()
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, diag.RunSpawnerLifelineBad(err.Error())
	}
	hl, why := readHello(line, h.DelegationID)
	if why != "" {
		f.Close()
		return nil, diag.RunSpawnerLifelineBad(why)
	}
	l := &Link{Handle: h, Depth: hl.Depth, DoorToken: hl.DoorToken, completionToken: hl.CompletionToken,
		life: f, ended: make(chan struct{})}
	l.wg.Go(func() {
		_, err := io.Copy(io.Discard, br) // the parent writes nothing more: only EOF counts
		if errors.Is(err, os.ErrClosed) {
			return // Close, not the parent
		}
		close(l.ended)
	})
	return l, nil
}

// firstLine reads the lifeline's hello within HelloWait.
func firstLine(ctx context.Context, f *os.File, br *bufio.Reader) ([]byte, error) {
	_ = f.SetReadDeadline(time.Now().Add(HelloWait))
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Now()) })
	defer stop()
	line, err := br.ReadSlice('\n')
	_ = f.SetReadDeadline(time.Time{})
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, errors.New("no first line arrived within 10s")
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, errors.New("its first line is longer than 4 KiB")
	case errors.Is(err, io.EOF):
		return nil, errors.New("it closed before its first line")
	case err != nil:
		return nil, err
	}
	return append([]byte(nil), line...), nil
}

// Ended is closed when the lifeline reads EOF: the capsule that spawned this
// one has ended, however it ended (DLG-6).
func (l *Link) Ended() <-chan struct{} { return l.ended }

// SpawnerEnded reports whether the lifeline has closed.
func (l *Link) SpawnerEnded() bool {
	select {
	case <-l.ended:
		return true
	default:
		return false
	}
}

// Report writes c to dir/completion.json (reported_by child, delivered
// false), posts it to the parent's door unless the spawner has ended, and
// rewrites the file with what the post did (DLG-7). A failed post does not
// fail the session; its reason is returned for the child's own log.
func (l *Link) Report(ctx context.Context, dir string, c wire.Completion) error {
	c.DelegationID, c.ReportedBy, c.Delivered = l.DelegationID, wire.ReportedByChild, false
	if err := writeCompletion(dir, c); err != nil {
		return err
	}
	var perr error
	if l.SpawnerEnded() {
		perr = errors.New("the spawner had ended, so there was no door to post it to")
	} else {
		perr = l.post(ctx, c)
	}
	if perr != nil {
		c.DeliveryError = perr.Error()
	} else {
		c.Delivered = true
	}
	if err := writeCompletion(dir, c); err != nil {
		return err
	}
	return perr
}

// post sends the completion as one SendMessage with the completion headers
// (DLG-7); the parent answers a message, never a task.
func (l *Link) post(ctx context.Context, c wire.Completion) error {
	cl, err := client.New(client.Config{BaseURL: l.URL, Token: l.completionToken})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, PostTimeout)
	defer cancel()
	req := a2a.SendMessageRequest{
		Message: a2a.Message{MessageID: a2a.PrefixMessage + strings.TrimPrefix(l.DelegationID, "dlg_"), Role: a2a.RoleUser,
			ContextID: a2a.ContextID(l.ContextID), Parts: []a2a.Part{a2a.TextPart(c.Message())}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	}
	resp, err := cl.SendMessage(ctx, req,
		client.WithTaskOrigin(a2a.OriginCompletion, a2a.Trust(l.Trust)),
		client.WithHeader(a2a.HeaderDelegationID, l.DelegationID),
		client.WithHeader(a2a.HeaderCompletionSession, l.SessionID))
	if err != nil {
		return err
	}
	if resp.Message == nil {
		return errors.New("the parent's door answered a task, not a message")
	}
	return nil
}

// Close stops the lifeline reader and waits for it; it does not close
// Ended. Safe to call more than once.
func (l *Link) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	err := l.life.Close()
	l.wg.Wait()
	return err
}
