package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"html"
	"log/slog"
	"net"
	"os"
	"os/exec"
	goruntime "runtime"
	"strconv"
	"sync"
	"time"

	"github.com/murmur-go/mur/launcher/view"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/supervisor"
)

// cmdView is `mur view`: a live, read-only web view of a
// formation or a session.
var cmdView = &command{
	name:    "view",
	summary: "serve a live web page of a formation or a session",
	run:     runView,
}

const viewUsage = `Usage: mur view [<frm_id> | <session>] [--port <port>] [--open] [--json]

Serves a read-only web page on 127.0.0.1 that shows a formation, or a single
session: its members as a graph (capsule@version and state: starting, ready,
working, idle or ended) with the roster's edges, member calls as arrows that
carry their state, each member's tasks with their A2A states over time, and,
on a click, a task's timeline from its trace (turns, inference calls with
latency and tokens, tool calls, member calls and the waits for answers).
A running formation updates live, from its members' traces and doors; an
ended one is replayed from its records. With no argument, the newest running
session's formation (or that session, when it is in none) is shown.

The printed URL carries a random token: the view answers no request without
it. The view runs until interrupted (Ctrl-C).`

// viewLine is --json's readiness line: keys in order.
type viewLine struct {
	ID   string    `json:"id"`
	Kind view.Kind `json:"kind"`
	PID  int       `json:"pid"`
	URL  string    `json:"url"`
}

func runView(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	port := fs.Int("port", 0, "serve on this 127.0.0.1 `port` (default 0: one the system picks)")
	open := fs.Bool("open", false, "open the page in the desktop's browser")
	asJSON := fs.Bool("json", false, "print one JSON line (id, kind, pid, url) once the view serves")
	pos, code, done := parseInterspersed(env, "view", viewUsage, fs, args)
	if done {
		return code
	}
	if len(pos) > 1 {
		return usageError(env, "view", fmt.Sprintf("unexpected argument '%s'", pos[1]))
	}
	if *port < 0 || *port > 65535 {
		return usageError(env, "view", fmt.Sprintf("--port %d is not a port number (0 to 65535)", *port))
	}
	var arg string
	if len(pos) == 1 {
		arg = pos[0]
	}
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return fail(env, "view", err)
	}
	target, err := view.Locate(home, arg)
	if err != nil {
		return fail(env, "view", err)
	}
	token := view.NewToken()
	v, err := view.New(view.Config{Home: home, Target: target, Token: token,
		Logger: slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return fail(env, "view", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
	if err != nil {
		return fail(env, "view", diag.ViewListen(*port, listenReason(err)).WithErr(err))
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/?token=%s", ln.Addr().(*net.TCPAddr).Port, token)
	if *asJSON {
		_ = writeJSON(env.Stdout, viewLine{ID: target.ID, Kind: target.Kind, PID: os.Getpid(), URL: url}) // four plain fields always encode
	} else {
		fmt.Fprintf(env.Stdout, "view:     %s\nshowing:  %s %s\n", url, target.Kind, target.ID)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	if *open {
		cleanup, err := openBrowser(ctx, &wg, url)
		if err != nil {
			fmt.Fprint(env.Stderr, diag.ViewNoBrowser(err.Error()).Render())
		}
		defer cleanup()
	}
	if err := v.Run(ctx, ln); err != nil {
		return fail(env, "view", err)
	}
	return 0
}

// listenReason is the OS's reason a listen failed, without Go's "listen tcp …:" prefix.
func listenReason(err error) string {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	return err.Error()
}

// openerGrace is how long the browser opener has after SIGTERM when the
// view ends before it did.
const openerGrace = 2 * time.Second

// openBrowser opens url in the desktop's browser without putting the token
// on any command line (it would show in ps): it writes a page that
// redirects to url into a 0600 temporary file, as Jupyter does, and asks
// xdg-open (macOS: open) to open that file. The opener is reaped by a
// goroutine in wg (runtime/supervisor); cleanup removes the file.
func openBrowser(ctx context.Context, wg *sync.WaitGroup, url string) (cleanup func(), err error) {
	cleanup = func() {}
	opener := "xdg-open"
	if goruntime.GOOS == "darwin" {
		opener = "open"
	}
	bin, err := exec.LookPath(opener)
	if err != nil {
		return cleanup, fmt.Errorf("%s is not installed", opener)
	}
	f, err := os.CreateTemp("", "mur-view-*.html") // mode 0600
	if err != nil {
		return cleanup, err
	}
	cleanup = func() { os.Remove(f.Name()) }
	esc := html.EscapeString(url)
	_, err = fmt.Fprintf(f, "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url=%s\"><title>mur view</title><p><a href=\"%s\">Open the view</a></p>\n", esc, esc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return cleanup, err
	}
	// The opener leads a group of its own (Ctrl-C at the terminal is the
	// view's, not the browser's), and the view's end stops it with grace.
	p, err := supervisor.Start(exec.CommandContext(ctx, bin, f.Name()), supervisor.Options{Grace: openerGrace})
	if err != nil {
		return cleanup, err
	}
	wg.Go(func() { <-p.Done() })
	return cleanup, nil
}
