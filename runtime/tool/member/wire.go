package member

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
)

// describe names why a door did not answer without its URL or port, which
// no text may carry (CALL-3).
func describe(err error, request time.Duration) string {
	if f := client.Classify(err); f != client.TimedOut {
		return f.String()
	}
	return fmt.Sprintf("no answer within %s", secs(request))
}

// secs renders d as "<n>s" when whole seconds, else as Go does.
func secs(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	return d.String()
}

// statusText is the text of a task's status message, "" when none.
func statusText(t *a2a.Task) string {
	if t.Status.Message == nil {
		return ""
	}
	return a2a.Text(t.Status.Message.Parts)
}

// offerKind is how a door answered one offer (CALL-7, CALL-9).
type offerKind int

const (
	offerNoAnswer offerKind = iota // the door did not answer
	offerBusy                      // TASK_STATE_REJECTED, exactly the busy text
	offerTaken                     // a task id in a non-terminal state (CALL-4)
	offerRejected                  // TASK_STATE_REJECTED, another reason
	offerFailed                    // an error status, a JSON-RPC error, another terminal state
)

// offerAnswer is one classified offer.
type offerAnswer struct {
	kind    offerKind
	taskID  string
	why     string // rejected/failed output; the no-answer description
	message string // the busy refusal's status message
}

// classifyOffer reads SendMessage's answer; noAnswer is true when the request
// got no answer (cut by its own bound or the in-flight cap included).
func classifyOffer(member string, resp *a2a.SendMessageResponse, err error, noAnswer bool, request time.Duration) offerAnswer {
	if err != nil {
		if noAnswer || client.IsNoAnswer(err) {
			return offerAnswer{kind: offerNoAnswer, why: describe(err, request)}
		}
		return offerAnswer{kind: offerFailed, why: failedWhy(member, a2a.MethodSendMessage, err)}
	}
	if resp.Task == nil {
		return offerAnswer{kind: offerFailed, why: outputUnreadable(member, a2a.MethodSendMessage)}
	}
	t := resp.Task
	msg := statusText(t)
	switch {
	case t.Status.State == a2a.TaskStateRejected && msg == busyMessage:
		return offerAnswer{kind: offerBusy, message: msg}
	case t.Status.State == a2a.TaskStateRejected:
		return offerAnswer{kind: offerRejected, why: outputRejected(member, msg)}
	case t.Status.State.Terminal():
		return offerAnswer{kind: offerFailed, why: outputAnsweredState(member, string(t.Status.State), msg)}
	}
	return offerAnswer{kind: offerTaken, taskID: string(t.ID)}
}

// failedWhy is CALL-7's <why> for an answer that refused or failed a request.
func failedWhy(member, method string, err error) string {
	var re *a2a.Error
	var he *client.HTTPError
	switch {
	case errors.As(err, &re) && method == a2a.MethodGetTask:
		return outputGetTaskRPCError(member, re.Code, re.Message)
	case errors.As(err, &re):
		return outputRPCError(member, re.Code, re.Message)
	case errors.As(err, &he):
		msg := he.Message
		if msg == "" {
			msg = he.Code
		}
		if msg == "" {
			msg = http.StatusText(he.Status)
		}
		return outputHTTPStatus(member, fmt.Sprintf("HTTP %d", he.Status), msg)
	}
	return outputUnreadable(member, method)
}

// terminal is CALL-10's ending for a task in a terminal state: its status,
// output (not yet cut) and the members further down it reported.
func terminal(member string, t *a2a.Task) (status, output string, below []a2a.NoAnswerEntry) {
	msg := statusText(t)
	switch t.Status.State {
	case a2a.TaskStateCompleted:
		if a := t.Artifact(a2a.ArtifactResponse); a != nil {
			output = a2a.Text(a.Parts)
		}
		return statusCompleted, output, readBelow(t)
	case a2a.TaskStateFailed:
		if m, ok := a2a.MurmurMetadata(t); ok && m.NoAnswer {
			if msg == "" {
				msg = outputNoAnswerDefault(member)
			}
			return statusNoAnswer, msg, readBelow(t)
		}
		status = statusFailed
	case a2a.TaskStateCanceled:
		status = statusCanceled
	default:
		status = statusRejected
	}
	if msg == "" {
		msg = outputEndedDefault(member, status)
	}
	return status, msg, nil
}
