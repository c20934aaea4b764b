package trace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"time"
)

// Tail reads a trace that is still being written, line by line from where r
// stands, each with its header decoded, and at the end of what is written
// looks again every every until ctx ends, which ends the sequence. A trace
// has no change notice, so the end is looked at again and again. A last line
// without its newline is not written yet and waits for the rest. A line that
// is not a record yields a *MalformedError and the tail goes on if the caller
// goes on; a read error yields that error and ends it.
func Tail(ctx context.Context, r io.Reader, every time.Duration) iter.Seq2[Line, error] {
	return func(yield func(Line, error) bool) {
		br := bufio.NewReader(r)
		var partial []byte
		var tick *time.Ticker
		for n := 1; ; {
			b, err := br.ReadBytes('\n')
			partial = append(partial, b...)
			if errors.Is(err, io.EOF) {
				if tick == nil {
					tick = time.NewTicker(every)
					defer tick.Stop()
				}
				select { // the rest of the line, or the next one, is not written yet
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				continue
			}
			if err != nil {
				yield(Line{Num: n}, err)
				return
			}
			l, perr := ParseLine(bytes.TrimSuffix(partial, []byte("\n")))
			partial = partial[:0:0] // l.Raw keeps the bytes it was parsed from
			l.Num = n
			if perr != nil {
				perr = &MalformedError{Line: n, Err: perr}
			}
			n++
			if !yield(l, perr) {
				return
			}
		}
	}
}
