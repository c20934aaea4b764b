package view

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// serve runs the studio view on a loopback listener until the test ends and
// returns its base URL (no token).
func serve(t *testing.T) (base string, v *View) {
	t.Helper()
	v = newStudioView(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1) // Run's one result
	go func() { done <- v.Run(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return "http://" + ln.Addr().String(), v
}

func get(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func request(t *testing.T, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestTokenGuardsEverything: without the token (or its cookie) every path is
// refused; with it the page is served and sets the cookie, which then
// serves the assets alone; the view is read-only and answers only its own
// loopback host; its headers forbid framing, referrers and foreign scripts.
func TestTokenGuardsEverything(t *testing.T) {
	t.Parallel()
	base, _ := serve(t)
	for _, path := range []string{"/", "/assets/view.js", "/api/state", "/api/events", "/api/timeline?member=planner&task=" + studioTask, "/?token=wrong"} {
		if resp, body := get(t, request(t, "GET", base+path)); resp.StatusCode != 403 || !strings.Contains(body, "needs the token") {
			t.Errorf("GET %s without the token = %d %q, want 403", path, resp.StatusCode, body)
		}
	}
	resp, body := get(t, request(t, "GET", base+"/?token=tok"))
	if resp.StatusCode != 200 || !strings.Contains(body, `<script src="/assets/view.js" defer></script>`) {
		t.Fatalf("GET /?token= = %d %q", resp.StatusCode, body)
	}
	port := base[strings.LastIndexByte(base, ':')+1:]
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "mur_view_"+port {
			cookie = c
		}
	}
	if cookie == nil || cookie.Value != "tok" || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie = %+v, want mur_view_%s=tok, HttpOnly, SameSite=Strict", cookie, port)
	}
	h := resp.Header
	if !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'; script-src 'self'") || h.Get("Referrer-Policy") != "no-referrer" ||
		h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("security headers = %v", h)
	}
	for path, ctype := range map[string]string{"/assets/view.js": "text/javascript; charset=utf-8", "/assets/view.css": "text/css; charset=utf-8"} {
		req := request(t, "GET", base+path)
		req.AddCookie(cookie)
		if resp, _ := get(t, req); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctype {
			t.Errorf("GET %s with the cookie = %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	if resp, _ := get(t, request(t, "POST", base+"/api/state?token=tok")); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST = %d, want 405", resp.StatusCode)
	}
	req := request(t, "GET", base+"/api/state?token=tok")
	req.Host = "attacker.example:" + port
	if resp, _ := get(t, req); resp.StatusCode != 403 {
		t.Errorf("a foreign Host = %d, want 403", resp.StatusCode)
	}
	if resp, _ := get(t, request(t, "GET", base+"/api/timeline?member=planner&task=tsk_none&token=tok")); resp.StatusCode != 404 {
		t.Errorf("timeline of an unknown task = %d, want 404", resp.StatusCode)
	}
	if resp, body := get(t, request(t, "GET", base+"/api/timeline?member=planner&task="+studioTask+"&token=tok")); resp.StatusCode != 200 || !strings.Contains(body, `"call to coder completed"`) {
		t.Errorf("timeline = %d %.200s", resp.StatusCode, body)
	}
}

// TestEventsStartWithSnapshot: the event stream opens with the snapshot,
// then carries each change; the server's shutdown ends it.
func TestEventsStartWithSnapshot(t *testing.T) {
	t.Parallel()
	base, v := serve(t)
	resp, err := http.DefaultClient.Do(request(t, "GET", base+"/api/events?token=tok"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("Content-Type = %q", resp.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(resp.Body)
	name, data := readEvent(t, r)
	var s Snapshot
	if err := json.Unmarshal([]byte(data), &s); name != "snapshot" || err != nil || len(s.Members) != 3 || len(s.Calls) != 3 || len(s.Tasks) != 4 {
		t.Fatalf("first event %s %v: %.300s", name, err, data)
	}
	v.m.mu.Lock()
	c := v.m.call("mcl_01a2400000007000800000000000000d", "planner", "coder", studioTask, 5)
	v.m.setCallState(c, "busy", 5, "offer 1 refused")
	v.m.mu.Unlock()
	name, data = readEvent(t, r)
	var got Call
	if err := json.Unmarshal([]byte(data), &got); name != "call" || err != nil || got.State != "busy" || got.From != "planner" {
		t.Errorf("next event %s: %s", name, data)
	}
}

// readEvent reads one server-sent event (skipping heartbeats).
func readEvent(t *testing.T, r *bufio.Reader) (name, data string) {
	t.Helper()
	for {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read event: %v", err)
		}
		l = strings.TrimSuffix(l, "\n")
		switch {
		case strings.HasPrefix(l, "event: "):
			name = l[len("event: "):]
		case strings.HasPrefix(l, "data: "):
			data = l[len("data: "):]
		case l == "" && name != "":
			return name, data
		}
	}
}

// TestSlowStreamIsCut: a stream that does not keep up is cut, not waited for.
func TestSlowStreamIsCut(t *testing.T) {
	t.Parallel()
	h := newHub()
	s := h.add()
	evs := make([][]byte, subQueue+1)
	for i := range evs {
		evs[i] = []byte(strconv.Itoa(i))
	}
	h.publish(evs)
	select {
	case <-s.gone:
	default:
		t.Fatal("a stream over its queue was not cut")
	}
	if len(h.subs) != 0 {
		t.Errorf("%d streams left", len(h.subs))
	}
}
