package conformance

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The checks that once failed the @a2a-js/sdk reference server for answers
// the standards allow, judged on that server's recorded answers
// (testdata/jsref/). Each also keeps failing a door that breaks the rule the
// check guards, on the same answers edited.

// judge replays fx and runs check against it.
func judge(t *testing.T, fx *fixture, check string) Result {
	t.Helper()
	cfg := Config{URL: serveFixture(t, fx), Token: jsrefToken, CheckTimeout: 10 * time.Second}
	got := runSelected(context.Background(), cfg, check)
	if got["card.fetch"].Status != Pass {
		t.Fatalf("card.fetch on the replay: %s", got["card.fetch"])
	}
	return got[check]
}

func wantStatus(t *testing.T, r Result, want Status) {
	t.Helper()
	if r.Status != want {
		t.Errorf("%s, want %s", r, want)
	}
}

// RFC 8259 §6: 2^53+1 is past what a JSON number interoperably holds; the
// JavaScript server answers it as 2^53, the same IEEE double.
func TestJSReference_IDEcho_RFC8259(t *testing.T) {
	t.Parallel()
	fx := loadFixture(t, "rpc.id-echo")
	e := recorded(t, fx, "GetTask", `"id":9007199254740992,`)
	if string(e.ID) != pastExactID {
		t.Fatalf("the rounded answer is to request id %s, want %s", e.ID, pastExactID)
	}
	wantStatus(t, judge(t, fx, "rpc.id-echo"), Pass)

	for _, bad := range []string{`"id":"9007199254740993",`, `"id":9007199254740994,`} {
		e.Answer = strings.Replace(e.Answer, `"id":9007199254740992,`, bad, 1)
		r := judge(t, fx, "rpc.id-echo")
		wantStatus(t, r, Fail)
		e.Answer = strings.Replace(e.Answer, bad, `"id":9007199254740992,`, 1)
	}
}

// A2A §3.3.1: cancel is idempotent, so a canceled task canceled again may be
// answered as it stands. Another task, or the task in another state, fails.
func TestJSReference_CancelCanceled_A2A331(t *testing.T) {
	t.Parallel()
	fx := loadFixture(t, "cancel.ended")
	var cancels []*exchRecord
	for i := range fx.Exchanges {
		if e := &fx.Exchanges[i]; e.RPC == "CancelTask" {
			cancels = append(cancels, e)
		}
	}
	if len(cancels) != 2 || !strings.Contains(cancels[1].Answer, `"result":{`) ||
		!strings.Contains(cancels[1].Answer, "TASK_STATE_CANCELED") {
		t.Fatalf("want the interrupted task canceled, then canceled again and answered as it stands; recorded %d CancelTask", len(cancels))
	}
	wantStatus(t, judge(t, fx, "cancel.ended"), Pass)

	again := cancels[1].Answer
	cancels[1].Answer = strings.Replace(again, "TASK_STATE_CANCELED", "TASK_STATE_WORKING", 1)
	wantStatus(t, judge(t, fx, "cancel.ended"), Fail)
	cancels[1].Answer = strings.Replace(again, `"result":{"id":"`, `"result":{"id":"x`, 1)
	wantStatus(t, judge(t, fx, "cancel.ended"), Fail)
}

// A2A §3.1.6: a stream stays open until the task is terminal, so a task
// parked in INPUT_REQUIRED keeps its subscription open. The suite cancels it
// and reads the stream to CANCELED; a door that never ends the stream of a
// canceled task fails.
func TestJSReference_SubscribeInputRequired_A2A316(t *testing.T) {
	t.Parallel()
	fx := loadFixture(t, "subscribe.live")
	e := recorded(t, fx, "SubscribeToTask", "TASK_STATE_INPUT_REQUIRED")
	if len(e.Events) != 2 || !strings.Contains(e.Events[1].Block, "TASK_STATE_CANCELED") || e.Events[1].After <= e.Events[0].After {
		t.Fatalf("want the INPUT_REQUIRED task, then CANCELED after the cancel arrived; recorded %+v", e.Events)
	}
	wantStatus(t, judge(t, fx, "subscribe.live"), Pass)

	e.Events = e.Events[:1]
	e.Events = append(e.Events, eventRecord{After: 1 << 30}) // never sent: the stream stays open
	cfg := Config{URL: serveFixture(t, fx), Token: jsrefToken, CheckTimeout: 500 * time.Millisecond}
	r := runSelected(context.Background(), cfg, "subscribe.live")["subscribe.live"]
	wantStatus(t, r, Fail)
}

// RFC 6750 §3.1: a refusal's Bearer challenge SHOULD name the error; without
// it the check warns. A refusal with no Bearer challenge at all fails (RFC
// 6750 §3: MUST).
func TestJSReference_BearerChallenge_RFC6750(t *testing.T) {
	t.Parallel()
	fx := loadFixture(t, "auth")
	e := recorded(t, fx, "GetTask", `"error":"unauthorized"`)
	if www := e.Header.Get("Www-Authenticate"); www != `Bearer realm="js-reference"` {
		t.Fatalf("recorded challenge %q", www)
	}
	wantStatus(t, judge(t, fx, "auth.missing"), Pass)
	r := judge(t, fx, "auth.invalid")
	wantStatus(t, r, Warn)
	if !strings.Contains(r.Why, `names no error="invalid_token", which RFC 6750 §3.1 says it should`) {
		t.Errorf("why %q", r.Why)
	}

	for i := range fx.Exchanges {
		fx.Exchanges[i].Header.Del("Www-Authenticate")
	}
	wantStatus(t, judge(t, fx, "auth.missing"), Fail)
	wantStatus(t, judge(t, fx, "auth.invalid"), Fail)
}
