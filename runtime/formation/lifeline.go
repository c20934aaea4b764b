package formation

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/murmur-go/mur/runtime/wire"
)

// LifelineClosedNotice is the stderr line a member prints when its lifeline
// closes, after writing formation_ended (LIFE-3 step 2).
const LifelineClosedNotice = "[capsule-runtime] formation lifeline closed — the formation has ended; cancelling live tasks and ending the session"

// ExitGrace is how long after its lifeline closed a member exits with
// ExitCode wherever its teardown is (LIFE-4).
const ExitGrace = 20 * time.Second

// ExitCode is the member's exit status when ExitGrace runs out (LIFE-4).
const ExitCode = 143

// ErrFormationEnded is the cancel cause of work cancelled because the
// lifeline closed (STYLE §5; capsule.md SES-5 `canceled: formation ended`).
var ErrFormationEnded = errors.New("formation ended")

// Ended is closed when the lifeline reads EOF: the formation has ended
// (LIFE-1). It is nil — never ready — for a member without a lifeline.
func (m *Member) Ended() <-chan struct{} {
	if m.ended == nil {
		return nil
	}
	return m.ended
}

// EndedAt is when the lifeline read EOF; zero before.
func (m *Member) EndedAt() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.endedAt
}

// ArmExitTimer calls exit(ExitCode) ExitGrace after the lifeline closed
// (LIFE-4), on its own goroutine; call it once the wind-down starts. It
// returns a stop function (true if it stopped the timer before it fired).
// It panics if the lifeline has not closed: a programmer error.
func (m *Member) ArmExitTimer(exit func(code int)) (stop func() bool) {
	at := m.EndedAt()
	if at.IsZero() {
		panic("formation: ArmExitTimer before the lifeline closed")
	}
	t := time.AfterFunc(time.Until(at.Add(ExitGrace)), func() { exit(ExitCode) })
	return t.Stop
}

// Orderly reports whether the lifeline carried wire.OrderlyEnd before its EOF:
// the launcher ended the formation, rather than died. False before Ended.
func (m *Member) Orderly() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.orderly
}

// watchLifeline starts the goroutine that reads the lifeline, discarding any
// stray bytes, and closes Ended at EOF (LIFE-1). Close stops it without
// closing Ended.
func (m *Member) watchLifeline(fd int) {
	m.Lifeline = true
	m.ended = make(chan struct{})
	m.life = openFD(fd, "formation-lifeline")
	m.wg.Go(func() {
		head, err := io.ReadAll(io.LimitReader(m.life, wire.OrderlyWindow))
		if err == nil {
			_, err = io.Copy(io.Discard, m.life)
		}
		if err != nil && errors.Is(err, os.ErrClosed) {
			return // Close, not the launcher
		}
		m.mu.Lock()
		m.endedAt = time.Now()
		m.orderly = wire.Orderly(head)
		m.mu.Unlock()
		close(m.ended)
	})
}
