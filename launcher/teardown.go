package launcher

import (
	"context"
	"time"
)

// readerGrace bounds the wait for a reaped member's last output lines; a
// grandchild still holding the pipe must not hold the launcher.
const readerGrace = 2 * time.Second

// teardown ends members ps (LIFE-2, LIFE-4): it closes each lifeline, gives
// them TeardownGrace to wind down, then SIGKILLs what still runs — a peer's
// whole process group, the entry by pid — and always reaps. A further
// launcher signal cuts the grace short. The launcher never sends SIGTERM.
func (l *launch) teardown(ps []*proc) {
	for _, p := range ps {
		p.endLifeline() // the launcher ends it: an orderly end, not an alarm
	}
	allExited := make(chan struct{})
	go func() { // ends once every member is reaped, which always happens below
		for _, p := range ps {
			<-p.exited
		}
		close(allExited)
	}()
	grace := time.NewTimer(l.grace)
	defer grace.Stop()
	select {
	case <-allExited:
	case <-grace.C:
	case <-l.cfg.Signals:
	}
	for _, p := range ps {
		if p.running() {
			p.kill()
		}
	}
	<-allExited
	// One reader grace for the whole formation, not one per member, so a
	// formation's teardown does not grow with its size.
	readers, cancel := context.WithTimeout(context.Background(), readerGrace)
	defer cancel()
	for _, p := range ps {
		p.finishOutput(readers.Done())
		p.closeAll()
	}
}

// kill SIGKILLs a peer's process group, or the entry member alone (it shares
// the launcher's group).
func (p *proc) kill() { p.sup.Kill() }

// finishOutput waits, until expired is closed, for a reaped peer's readers to
// reach EOF, then closes the read ends so they stop.
func (p *proc) finishOutput(expired <-chan struct{}) {
	for _, done := range []chan struct{}{p.outDone, p.errDone} {
		select {
		case <-done:
		case <-expired:
		}
	}
	if p.outR != nil {
		p.outR.Close()
		p.errR.Close()
	}
}
