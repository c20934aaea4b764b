package traceview

import (
	"fmt"

	"github.com/murmur-go/mur/runtime/trace"
)

// Input is a trace's request-input records (input.md INP-10): each
// question a task asked, and what answered it.
type Input struct {
	Requests []trace.InputRequest `json:"requests"`
	Replies  []trace.InputReply   `json:"replies"`
	Timeouts []trace.InputTimeout `json:"timeouts"`
}

// PeerFiles is a trace's peer-file records (tools.md PFILE-6): the handles
// share-file minted, the redeems this door answered, the fetch-peer-file
// calls.
type PeerFiles struct {
	Mints   []trace.PeerHandleMint   `json:"mints"`
	Redeems []trace.PeerHandleRedeem `json:"redeems"`
	Fetches []trace.PeerFileFetch    `json:"fetches"`
}

// inputLines is the Input section: one line per question, in the
// order asked, with its answer: who replied and after how long, no reply
// within the bound, or none yet.
func inputLines(tr *Trace) []string {
	type asked struct {
		req    trace.InputRequest
		answer string
	}
	var qs []*asked
	open := func(task string) *asked { // the task's oldest unanswered question
		for _, q := range qs {
			if q.req.TaskID == task && q.answer == "" {
				return q
			}
		}
		return nil
	}
	for _, r := range tr.inputOrder {
		switch r := r.(type) {
		case trace.InputRequest:
			qs = append(qs, &asked{req: r})
		case trace.InputReply:
			if q := open(r.TaskID); q != nil {
				who := r.Origin + ", " + r.Trust
				if r.CallerMember != "" {
					who = "'" + r.CallerMember + "' (" + who + ")"
				}
				q.answer = fmt.Sprintf("answered after %s by %s, %s", Duration(r.WaitedMS), who, size(int64(r.ReplyBytes)))
			}
		case trace.InputTimeout:
			if q := open(r.TaskID); q != nil {
				q.answer = fmt.Sprintf("no answer within %ds", r.TimeoutSecs)
			}
		}
	}
	var lines []string
	for _, q := range qs {
		bound := "no timeout"
		if q.req.TimeoutSecs != nil {
			bound = fmt.Sprintf("timeout %ds", *q.req.TimeoutSecs)
		}
		answer := q.answer
		if answer == "" {
			answer = "unanswered"
			if tr.Live {
				answer = "waiting"
			}
		}
		lines = append(lines, fmt.Sprintf("  turn %d  task %s  asked %s (%s)  → %s", q.req.Turn, ID8(q.req.TaskID),
			size(int64(q.req.PromptBytes)), bound, answer))
	}
	return lines
}

// peerLines is the Peer files section: one line per record in
// file order, a refusal with its reason.
func peerLines(tr *Trace) []string {
	var lines []string
	why := func(outcome string, reason *string) string {
		if outcome == "ok" || reason == nil {
			return ""
		}
		return "  — " + Cut(*reason)
	}
	for _, r := range tr.peerOrder {
		switch r := r.(type) {
		case trace.PeerHandleMint:
			to := r.Audience
			if to == "" {
				to = "?"
			}
			l := fmt.Sprintf("  turn %d  share-file  %s → %s  %s", r.Turn, r.Path, to, r.Outcome)
			if r.HandleID != nil {
				l += "  " + *r.HandleID
			}
			lines = append(lines, l+why(r.Outcome, r.Reason))
		case trace.PeerHandleRedeem:
			l := fmt.Sprintf("  redeem  %s  %s", r.HandleID, r.Outcome)
			if r.Path != nil {
				l += "  " + *r.Path
			}
			if r.Bytes != nil {
				l += "  " + size(*r.Bytes)
			}
			lines = append(lines, l+why(r.Outcome, r.Reason))
		case trace.PeerFileFetch:
			l := fmt.Sprintf("  turn %d  fetch-peer-file  %s from %s  %s", r.Turn, r.HandleID, r.Peer, r.Outcome)
			if r.Bytes != nil {
				l += "  " + size(*r.Bytes)
			}
			if r.StoredPath != nil {
				l += "  → " + *r.StoredPath
			}
			lines = append(lines, l+why(r.Outcome, r.Reason))
		}
	}
	return lines
}

// latency is the Turns section's model latency: the mean and the
// slowest of the inference records' duration_ms, "" when none carries one
// (a trace written before the field, or a harness's turns).
func latency(tr *Trace) string {
	var sum int64
	var n int
	var slowest trace.Inference
	for _, inf := range tr.Inferences {
		if inf.DurationMS <= 0 {
			continue
		}
		n++
		sum += inf.DurationMS
		if inf.DurationMS > slowest.DurationMS {
			slowest = inf
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("avg %dms, slowest %dms (task %s turn %d)", sum/int64(n), slowest.DurationMS, ID8(slowest.TaskID), slowest.Turn)
}

// size renders a byte count: "812 B", "1.2 KiB", "3.4 MiB", "1.0 GiB".
func size(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return fmt.Sprintf("%.1f KiB", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MiB", float64(n)/(k*k))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(k*k*k))
}
