// Command fakemember stands in for `mur run` in the launcher's tests: it
// takes the member command line, joins the formation with runtime/formation,
// serves a minimal door (public card; GetExtendedAgentCard with the launcher
// token) and prints a readiness line. Its capsule name picks a behaviour:
//
//	exit-early     prints two stderr lines and exits 3 before reporting
//	garbage        prints a first line that is not JSON
//	no-door        reports no url
//	wrong-frm      reports another formation id
//	silent         never reports
//	exit-after     reports, then exits 4 before its door answers
//	wrong-session  its door answers as another session
//	stubborn       ignores its lifeline and starts a grandchild in its group
//	pub-*          a public door: the public card names the session
//
// Anything else is a well-behaved member. A member given --task runs the task
// "exit:N" (look up every callee, print them, exit N) or "kill" (SIGKILL
// itself).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/credential"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/formation"
)

func main() { os.Exit(run()) }

func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if a == name {
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
				return args[i+1], true
			}
			return "", true
		}
	}
	return "", false
}

func run() int {
	args := os.Args[1:]
	capsule, _ := flagValue(args, "--capsule")
	workdir, _ := flagValue(args, "--workdir")
	task, hasTask := flagValue(args, "--task")
	_, isJSON := flagValue(args, "--json")
	if dl, ok := flagValue(args, "--inherited-deadline"); ok {
		fmt.Fprintf(os.Stderr, "[deadline] %s\n", dl)
	}
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP) // only the lifeline ends a member here
	m, err := formation.Join(os.Getenv)
	if err != nil {
		d, _ := diag.As(err)
		fmt.Fprint(os.Stderr, d.Render())
		return 1
	}
	reportLeaks()
	switch capsule {
	case "exit-early":
		fmt.Fprintln(os.Stderr, "starting up")
		fmt.Fprintln(os.Stderr, "cannot go on")
		return 3
	case "garbage":
		fmt.Println("hello")
		<-m.Ended()
		return 0
	case "silent":
		<-m.Ended()
		return 0
	}
	ses := a2a.NewID(a2a.PrefixSession)
	answerAs := ses
	if capsule == "wrong-session" {
		answerAs = a2a.NewID(a2a.PrefixSession)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	url := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: door(m, capsule, url, answerAs)}
	go srv.Serve(ln)
	r := map[string]any{"formation_id": m.FormationID, "name": capsule, "pid": os.Getpid(),
		"records_dir": filepath.Join(workdir, "records"), "session_id": ses, "url": url, "version": "1", "workdir": workdir}
	switch capsule {
	case "no-door":
		delete(r, "url")
	case "wrong-frm":
		r["formation_id"] = a2a.NewID(a2a.PrefixFormation)
	}
	line, _ := json.Marshal(r)
	if capsule == "exit-after" {
		ln.Close() // its door never answers
	}
	if isJSON {
		fmt.Println(string(line))
	} else {
		fmt.Printf("session: %s\n", ses)
	}
	fmt.Fprintf(os.Stderr, "up as %s\n", ses)
	switch {
	case capsule == "exit-after":
		fmt.Fprintln(os.Stderr, "leaving early")
		return 4
	case capsule == "stubborn":
		c := exec.Command("sleep", "3600")
		if err := c.Start(); err == nil {
			fmt.Fprintf(os.Stderr, "[grandchild] %d\n", c.Process.Pid)
		}
		select {}
	case hasTask:
		return runTask(m, task)
	}
	<-m.Ended()
	if !m.Orderly() { // as the real member: the notice is for a launcher that died
		fmt.Fprintln(os.Stderr, formation.LifelineClosedNotice)
	}
	fmt.Fprintln(os.Stderr, "[wound down]")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
	return 0
}

// runTask looks up every callee and prints what it found, then ends as the
// task says.
func runTask(m *formation.Member, task string) int {
	for _, c := range m.Callees {
		cl, err := m.Lookup(context.Background(), c)
		if err != nil {
			fmt.Fprintf(os.Stderr, "[lookup] %s: %v\n", c, err)
			continue
		}
		fmt.Fprintf(os.Stderr, "[lookup] %s %s %s token-ok=%v\n", c, cl.URL, cl.SessionID, cl.Token != "")
	}
	if task == "kill" {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	if n, ok := strings.CutPrefix(task, "exit:"); ok {
		code, _ := strconv.Atoi(n)
		return code
	}
	<-m.Ended()
	if !m.Orderly() { // as the real member: the notice is for a launcher that died
		fmt.Fprintln(os.Stderr, formation.LifelineClosedNotice)
	}
	fmt.Fprintln(os.Stderr, "[wound down]")
	return 0
}

// reportLeaks prints every descriptor above 4 that is open: a member holds
// only its own two read ends (LAUNCH-3).
func reportLeaks() {
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		fd, _ := strconv.Atoi(e.Name())
		if fd <= 4 {
			continue
		}
		target, _ := os.Readlink("/proc/self/fd/" + e.Name())
		if strings.HasPrefix(target, "pipe:") {
			fmt.Fprintf(os.Stderr, "[leak] fd %d %s\n", fd, target)
		}
	}
}

func card(url, ses string, withCapsule bool) a2a.AgentCard {
	c := a2a.AgentCard{Name: "fake", Version: "1",
		SupportedInterfaces: []a2a.AgentInterface{{URL: url, ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}}}
	if withCapsule {
		c.Capabilities.Extensions = []a2a.AgentExtension{{URI: a2a.ExtensionCapsule, Params: map[string]any{"sessionId": ses}}}
	}
	return c
}

func door(m *formation.Member, capsule, url, ses string) http.Handler {
	public := strings.HasPrefix(capsule, "pub-")
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+a2a.WellKnownCardPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(card(url, ses, public))
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		c, err := credential.Verify(m.PublicKey, m.FormationID, tok)
		if public || err != nil || !c.Launcher() || !c.Names(m.FormationID, m.Name) ||
			json.NewDecoder(r.Body).Decode(&req) != nil || req.Method != a2a.MethodGetExtendedAgentCard {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"invalid_token","message":"the Authorization header does not carry a token this door accepts"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": card(url, ses, true)})
	})
	return mux
}
