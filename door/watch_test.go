package door

import (
	"bufio"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

const watchBody = `{"jsonrpc":"2.0","id":1,"method":"stream/watch","params":{"anything":1}}`

const ackFrame = "event: connection-ack\ndata: {\"role\":\"observer\",\"conversation_mode\":\"stateless\"}\n"

// watchFrame splits a stream/watch frame (SSE-7).
type watchFrame struct {
	id    string
	event string
	data  map[string]any
}

func readFrame(t *testing.T, br *bufio.Reader) watchFrame {
	t.Helper()
	ev := nextEvent(t, br)
	if ev == "" {
		t.Fatal("stream ended, want a frame")
	}
	var f watchFrame
	lines := strings.Split(strings.TrimSuffix(ev, "\n"), "\n")
	if id, ok := strings.CutPrefix(lines[0], "id: "); ok {
		f.id, lines = id, lines[1:]
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
		t.Fatalf("frame %q is not [id,] event, data", ev)
	}
	f.event = strings.TrimPrefix(lines[0], "event: ")
	if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[1], "data: ")), &f.data); err != nil {
		t.Fatalf("frame data %q: %v", lines[1], err)
	}
	return f
}

// TestWatch_SSE6_SSE7_SSE8: connection-ack, then numbered status frames of
// every task; a final status does not close the stream; capsule-closed does.
func TestWatch_SSE6_SSE7_SSE8(t *testing.T) {
	td := startDoor(t, opts{})
	_, br := td.openStream("", watchBody)
	if ev := nextEvent(t, br); ev != ackFrame {
		t.Fatalf("first frame = %q, want %q", ev, ackFrame)
	}
	tk := td.call("", sendBody("done", "")).task(t, true)
	var states []string
	for want := 1; len(states) < 3; want++ {
		f := readFrame(t, br)
		if f.event != "status" || f.id != strconv.Itoa(want) || f.data["id"] != string(tk.ID) || f.data["context_id"] != string(tk.ContextID) {
			t.Fatalf("frame %d = %+v", want, f)
		}
		st := f.data["status"].(map[string]any)
		states = append(states, st["state"].(string))
		if st["state"] == "completed" && (st["response"] != "done" || f.data["final"] != true) {
			t.Errorf("completed frame = %+v", f.data)
		}
	}
	if got := strings.Join(states, " "); got != "submitted working completed" {
		t.Errorf("states = %s", got)
	}
	td.reg.CloseFrames()
	if ev := nextEvent(t, br); ev != "event: capsule-closed\ndata: {}\n" {
		t.Errorf("after CloseFrames: %q, want capsule-closed", ev)
	}
	if ev := nextEvent(t, br); ev != "" {
		t.Errorf("stream went on after capsule-closed: %q", ev)
	}
}

// TestWatchReplay_SSE9 replays after Last-Event-ID, with a gap for an id
// never issued, and reads a non-numeric id as 0.
func TestWatchReplay_SSE9(t *testing.T) {
	td := startDoor(t, opts{noExecutor: true})
	td.call("", sendBody("a", ""))
	td.call("", sendBody("b", "")) // frames 1 and 2: two submitted statuses
	td.reg.CloseFrames()           // so each replay ends with capsule-closed
	replay := func(last string) []string {
		t.Helper()
		hdr := []string{}
		if last != "" {
			hdr = append(hdr, "Last-Event-ID: "+last)
		}
		_, br := td.openStream("", watchBody, hdr...)
		if ev := nextEvent(t, br); ev != ackFrame {
			t.Fatalf("first frame = %q", ev)
		}
		var got []string
		for {
			f := readFrame(t, br)
			got = append(got, f.event+f.id)
			if f.event == "gap" && f.data["first_available_id"] != 1.0 {
				t.Errorf("gap = %v", f.data)
			}
			if f.event == "capsule-closed" {
				return got
			}
		}
	}
	for _, tc := range []struct{ last, want string }{
		{"", "status1 status2 capsule-closed"},
		{"abc", "status1 status2 capsule-closed"},
		{" 1 ", "status2 capsule-closed"},
		{"2", "capsule-closed"},
		{"99", "gap status1 status2 capsule-closed"},
	} {
		if got := strings.Join(replay(tc.last), " "); got != tc.want {
			t.Errorf("Last-Event-ID %q replays %s, want %s", tc.last, got, tc.want)
		}
	}
}

// TestWatchHeartbeatAndShutdown_SSE4_SSE5: an idle watch gets heartbeats,
// and Shutdown ends it.
func TestWatchHeartbeatAndShutdown_SSE4_SSE5(t *testing.T) {
	td := startDoor(t, opts{heartbeat: time.Millisecond})
	_, br := td.openStream("", watchBody)
	if ev := nextEvent(t, br); ev != ackFrame {
		t.Fatalf("first frame = %q", ev)
	}
	if ev := nextEvent(t, br); ev != ":heartbeat\n" {
		t.Fatalf("idle watch wrote %q, want a heartbeat", ev)
	}
	if err := td.door.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for ev := nextEvent(t, br); ev != ""; ev = nextEvent(t, br) {
		if ev != ":heartbeat\n" {
			t.Errorf("after shutdown: %q", ev)
		}
	}
}
