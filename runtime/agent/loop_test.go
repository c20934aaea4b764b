package agent

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// script is a Transport and a Policy that log every call the loop makes and
// answer from their fields.
type script struct {
	log      []string
	steps    []Step // one per Step call, in order
	canceled int    // Canceled reports true on this call (1-based); 0 never
	turns    int    // OutOfTurns reports true once this many steps ran; 0 never
	reopens  int    // AfterAnswer grants this many more steps
	begin    bool   // Begin ends the task
	resume   bool   // Resume ends the task
	ran      int
	asked    int
}

func (s *script) Begin(context.Context) (Ending, bool) {
	s.log = append(s.log, "begin")
	return Ending{Status: "begin"}, !s.begin
}

func (s *script) Step(context.Context) Step {
	st := s.steps[s.ran]
	s.ran++
	s.log = append(s.log, "step")
	return st
}

func (s *script) Resume(context.Context) (Ending, bool) {
	s.log = append(s.log, "resume")
	return Ending{Status: "resume"}, !s.resume
}

func (s *script) Canceled() (Ending, bool) {
	s.asked++
	return Ending{Status: StatusCanceled}, s.asked == s.canceled
}

func (s *script) OutOfTurns() (Ending, bool) {
	return MaxTurns(s.turns), s.turns > 0 && s.ran >= s.turns
}

func (s *script) AfterAnswer(_ context.Context, e Ending) (Ending, bool) {
	s.log = append(s.log, "after")
	if s.reopens > 0 {
		s.reopens--
		return Ending{}, true
	}
	return e, false
}

func run(s *script) (Ending, []EventKind) {
	var kinds []EventKind
	var end Ending
	for ev := range Run(context.Background(), s, s) {
		kinds = append(kinds, ev.Kind)
		if ev.Kind == Ended {
			end = ev.Ending
		}
	}
	return end, kinds
}

// TestRun_LOOP7: the one loop asks for steps until the task ends — a cancel
// or a spent budget before the next step, a step that ended the attempt, or
// an answer the policy does not reopen — and reports one Ended event last.
func TestRun_LOOP7(t *testing.T) {
	tool, answer := Step{}, Step{Answered: true, Ending: Ending{Status: StatusOK, Text: "done"}}
	failed := Step{Ended: true, Ending: Failed("internal", "boom")}
	cases := []struct {
		name   string
		s      *script
		status string
		log    string
	}{
		{"answer", &script{steps: []Step{tool, tool, answer}}, StatusOK, "begin step step step after"},
		{"reopened", &script{steps: []Step{answer, answer}, reopens: 1}, StatusOK, "begin step after resume step after"},
		{"step ended", &script{steps: []Step{tool, failed}}, StatusFailed, "begin step step"},
		{"canceled", &script{steps: []Step{tool, tool}, canceled: 2}, StatusCanceled, "begin step"},
		{"out of turns", &script{steps: []Step{tool, tool, tool}, turns: 2}, StatusMaxTurns, "begin step step"},
		{"begin ends", &script{begin: true}, "begin", "begin"},
		{"resume ends", &script{steps: []Step{answer}, reopens: 1, resume: true}, "resume", "begin step after resume"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			end, kinds := run(c.s)
			if end.Status != c.status {
				t.Errorf("ended %q, want %q", end.Status, c.status)
			}
			if got := strings.Join(c.s.log, " "); got != c.log {
				t.Errorf("calls %q, want %q", got, c.log)
			}
			if len(kinds) == 0 || kinds[len(kinds)-1] != Ended || slices.Index(kinds, Ended) != len(kinds)-1 {
				t.Errorf("events %v: want exactly one Ended, last", kinds)
			}
		})
	}
}

// TestRunStopsWhenTheConsumerDoes: a consumer that stops ranging stops the
// loop; no further step runs.
func TestRunStopsWhenTheConsumerDoes(t *testing.T) {
	s := &script{steps: []Step{{}, {}, {}}}
	for range Run(context.Background(), s, s) {
		break
	}
	if s.ran != 1 {
		t.Errorf("%d steps ran after the consumer stopped at the first event", s.ran)
	}
}

// TestFan: every sink gets the ending, in order.
func TestFan(t *testing.T) {
	var got []string
	sink := func(name string) Sink {
		return SinkFunc(func(e Ending) { got = append(got, name+":"+e.Status) })
	}
	Fan(Ending{Status: StatusOK}, sink("trace"), sink("result"), sink("stdout"))
	if want := []string{"trace:ok", "result:ok", "stdout:ok"}; !slices.Equal(got, want) {
		t.Errorf("sinks got %v, want %v", got, want)
	}
}

// TestBareReason: E-RUN-040's reason drops the status word.
func TestBareReason(t *testing.T) {
	for in, want := range map[string]string{
		ResultFailed("boom"): "boom", ResultMaxTurns(3): "inference.max_turns (3) reached before the task finished",
		ResultCanceled("user"): "user", "plain": "plain",
	} {
		if got := BareReason(in); got != want {
			t.Errorf("BareReason(%q) = %q, want %q", in, got, want)
		}
	}
}
