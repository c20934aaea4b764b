package member

import (
	"regexp"
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tool"
)

// standing is one member this task lacks an answer from, or whose answer has
// a gap: its latest accounted call's id and status, and the members further
// down it reported (RND-5, RND-6).
type standing struct {
	member, callID, status string
	below                  []a2a.NoAnswerEntry
}

// answer is one delivered call's block in a continuation (RND-4).
type answer struct {
	callID, member, status, output string
}

// block renders RND-4's header and the output fenced under member:<member>,
// whatever the calling task's trust.
func (a answer) block() string {
	h := headerCompleted(a.callID, a.member)
	if a.status != statusCompleted {
		h = headerOther(a.callID, a.member, a.status)
	}
	return h + "\n" + tool.Fence(tool.SourceMember+a.member, a.output)
}

// continuationParts are a continuation's member parts (RND-4..8): every
// answer's block in arrival order, and the runtime's lines — the no-answer
// line, each gap line, the last line — which follow every fence of the
// round, delegation outcomes' included (RND-4). caller is the formation
// member that sent the task, "" when none.
func continuationParts(answers []answer, st []standing, caller string) (blocks, lines []string) {
	for _, a := range answers {
		blocks = append(blocks, a.block())
	}
	var items, gaps []string
	for _, e := range st {
		if e.status == statusCompleted {
			gaps = append(gaps, gapLine(e.member, e.callID, belowList(e.below)))
			continue
		}
		items = append(items, noAnswerItem(e.member, e.callID, e.status, belowList(e.below)))
	}
	if len(items) > 0 {
		lines = append(lines, noAnswerLineHead+strings.Join(items, ", ")+noAnswerLineTail)
	}
	lines = append(lines, gaps...)
	switch {
	case len(st) == 0:
		lines = append(lines, lastLineComplete)
	case caller != "":
		lines = append(lines, lastLineMissing+lastLineCaller(caller))
	default:
		lines = append(lines, lastLineMissing)
	}
	return blocks, lines
}

// belowList renders "<name> (<status>), <name> (<status>)".
func belowList(below []a2a.NoAnswerEntry) string {
	s := make([]string, len(below))
	for i, b := range below {
		s[i] = b.Member + " (" + b.Status + ")"
	}
	return strings.Join(s, ", ")
}

// maxBelow is how many noAnswerBelow entries are read or written (RND-7).
const maxBelow = 8

// memberName is a roster member name (formations.md ROS: members[].name).
var memberName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// belowStatuses are the statuses a noAnswerBelow entry may carry (door.md
// TASK-6): a member's door cannot slip other words into the runtime's lines.
var belowStatuses = map[string]bool{
	statusFailed: true, statusCanceled: true, statusRejected: true, statusTimedOut: true,
	statusUnreachable: true, statusAbandoned: true, statusNoAnswer: true,
}

// readBelow is RND-7's read of a callee's metadata.murmur.noAnswerBelow: its
// first 8 entries, kept only with a member name and a status other than
// completed (one of TASK-6's). A member knows only its callees' names
// (CRED-7), so "a roster member name" is read as the roster's name syntax.
func readBelow(t *a2a.Task) []a2a.NoAnswerEntry {
	m, ok := a2a.MurmurMetadata(t)
	if !ok {
		return nil
	}
	entries := m.NoAnswerBelow
	if len(entries) > maxBelow {
		entries = entries[:maxBelow]
	}
	var out []a2a.NoAnswerEntry
	for _, e := range entries {
		if memberName.MatchString(e.Member) && belowStatuses[e.Status] {
			out = append(out, e)
		}
	}
	return out
}

// noAnswerBelow is RND-7's value for the task's own terminal GetTask: each
// member it lacks an answer from, each followed by the members that member
// reported, each once, at most 8; nil when empty.
func noAnswerBelow(st []standing) []a2a.NoAnswerEntry {
	var out []a2a.NoAnswerEntry
	seen := map[string]bool{}
	add := func(member, status string) {
		if seen[member] || len(out) >= maxBelow {
			return
		}
		seen[member] = true
		out = append(out, a2a.NoAnswerEntry{Member: member, Status: status})
	}
	for _, e := range st {
		if e.status != statusCompleted {
			add(e.member, e.status)
		}
		for _, b := range e.below {
			add(b.Member, b.Status)
		}
	}
	return out
}

// stand updates the standing list with a call just accounted for (RND-5,
// RND-6): a completed call with nothing missing below clears its member;
// any other keeps the member's first-recorded place and takes the call's id,
// status and reported members.
func stand(st []standing, member, callID, status string, below []a2a.NoAnswerEntry) []standing {
	i := -1
	for j, e := range st {
		if e.member == member {
			i = j
		}
	}
	if status == statusCompleted && len(below) == 0 {
		if i >= 0 {
			st = append(st[:i:i], st[i+1:]...)
		}
		return st
	}
	e := standing{member: member, callID: callID, status: status, below: below}
	if i >= 0 {
		st[i] = e
		return st
	}
	return append(st, e)
}
