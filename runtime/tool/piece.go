package tool

// Piece is what a Waiter keeps of one piece of its work (a call-member
// call, a delegation), guarded by the waiter's lock: Out once its goroutine
// runs, Ended once its outcome arrived, Accounted once it was delivered or
// abandoned (RND-1, RND-2, RND-9). A Waiter's piece type embeds it.
type Piece struct {
	Out       bool
	Ended     bool
	Accounted bool
}

// Arrived reports whether the piece's outcome arrived and waits to be
// delivered.
func (p *Piece) Arrived() bool { return p.Ended && !p.Accounted }

func (p *Piece) piece() *Piece { return p }

// Pieced is a type that embeds Piece.
type Pieced interface{ piece() *Piece }

// Outstanding is how many of ps are out and not yet arrived (RND-1), for a
// Waiter's Outstanding; its caller holds the waiter's lock.
func Outstanding[P Pieced](ps []P) int {
	n := 0
	for _, p := range ps {
		if pc := p.piece(); pc.Out && !pc.Ended {
			n++
		}
	}
	return n
}

// AnyArrived reports whether any of ps waits to be delivered, for a
// Waiter's Ready; its caller holds the waiter's lock.
func AnyArrived[P Pieced](ps []P) bool {
	for _, p := range ps {
		if p.piece().Arrived() {
			return true
		}
	}
	return false
}

// WaitingText is a Waiter's part of RND-1's status text: text(n) for n
// pieces outstanding, "" for none.
func WaitingText(n int, text func(int) string) string {
	if n > 0 {
		return text(n)
	}
	return ""
}
