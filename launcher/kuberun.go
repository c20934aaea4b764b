//go:build kube

package launcher

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/murmur-go/mur/launcher/kube"
	"github.com/murmur-go/mur/runtime/wire"
)

// KubeTarget is where `mur run --roster --on kubernetes` puts the
// formation.
type KubeTarget struct {
	Kubeconfig string // "" : the default loading rules ($KUBECONFIG, ~/.kube/config)
	Context    string // "" : the kubeconfig's current context
	Namespace  string // "" : the context's namespace
	Image      string // the mur image every member pod runs
	// Connect, when set, replaces kube.Connect (tests).
	Connect func(kubeconfig, context string) (*kube.Client, string, error)
}

// kubePoll is how often pod and Lease state is read.
const kubePoll = time.Second

// kubeLaunch applies the admitted formation to the cluster, holds its
// Lease, waits for every member pod to be ready, then runs the entry: with
// --task its output is followed to stdout and its exit code returned; in
// door mode its door is forwarded to 127.0.0.1 until a signal. Every end
// deletes the formation object, and the garbage collector the rest.
func (l *launch) kubeLaunch(ctx context.Context) int {
	kt := l.cfg.Kube
	connect := kt.Connect
	if connect == nil {
		connect = kube.Connect
	}
	c, ns, err := connect(kt.Kubeconfig, kt.Context)
	if err != nil {
		return l.fail(fmt.Errorf("the formation could not be put on Kubernetes: %w", err))
	}
	if kt.Namespace != "" {
		ns = kt.Namespace
	}
	spec, err := l.kubeSpec(ns, kt.Image)
	if err != nil {
		return l.fail(fmt.Errorf("the formation could not be put on Kubernetes: %w", err))
	}
	names := kube.NamesOf(spec.FormationID)
	teardown := func() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := c.Teardown(tctx, ns, spec.FormationID); err != nil {
			l.stderr.line("[mur run] ", fmt.Sprintf("warning: the formation object %s/%s could not be deleted: %s; delete it with: kubectl -n %s delete configmap %s", ns, names.Formation(), err, ns, names.Formation()))
		}
	}
	if uid, err := c.Apply(ctx, spec); err != nil {
		if uid != "" { // the formation object exists: it and what it owns go
			teardown()
		}
		return l.fail(fmt.Errorf("the formation could not be put on Kubernetes: %w", err))
	}
	lctx, stopLease := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() {
		c.HoldLease(lctx, spec, func(err error) {
			l.stderr.line("[mur run] ", "warning: the formation's Lease could not be renewed: "+err.Error())
		})
	})
	defer func() {
		teardown()
		stopLease()
		wg.Wait()
	}()

	rctx, cancelReady := context.WithTimeoutCause(ctx, l.readyTimeout, fmt.Errorf("not every member pod was ready within %s", secs(l.readyTimeout)))
	readyErr := make(chan error, 1)
	go func() { readyErr <- c.WaitReady(rctx, spec, kubePoll) }()
	done := make(chan struct{})
	var rerr error
	go func() { rerr = <-readyErr; close(done) }()
	sig := l.untilSignal(ctx, done)
	cancelReady()
	<-done
	if sig != nil {
		l.stderr.line("[mur run] ", fmt.Sprintf("the formation launch was interrupted by %s before every member was ready", signalName(sig)))
		return 128 + int(sig.(syscall.Signal))
	}
	if rerr != nil {
		return l.fail(fmt.Errorf("the formation could not be put on Kubernetes: %w", rerr))
	}
	l.printKubeFormation(spec)
	entry := names.Member(l.f.Entry().Name)
	if l.cfg.Task != nil {
		return l.kubeTask(ctx, c, ns, entry)
	}
	fctx, stopForward := context.WithCancel(context.WithoutCancel(ctx))
	defer stopForward()
	url, fwDone, err := c.PortForward(fctx, ns, entry)
	if err != nil {
		return l.fail(fmt.Errorf("the entry's door could not be forwarded: %w", err))
	}
	l.stderr.line("[mur run] ", fmt.Sprintf("entry %s: door %s (forwarded to pod %s/%s)", l.f.Entry().Name, url, ns, entry))
	sig = l.untilSignal(ctx, fwDone)
	stopForward()
	<-fwDone
	if sig == nil {
		return l.fail(errors.New("the port-forward to the entry's door ended"))
	}
	return 128 + int(sig.(syscall.Signal))
}

// kubeTask follows the entry pod's output to stdout and returns its exit
// code, or a signal's.
func (l *launch) kubeTask(ctx context.Context, c *kube.Client, ns, pod string) int {
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	code := make(chan int, 1)
	var ferr error
	go func() {
		ferr = c.FollowLogs(tctx, ns, pod, l.cfg.Stdout)
		n, err := c.ExitCode(tctx, ns, pod, kubePoll)
		if err != nil {
			n = 1
		}
		code <- n
	}()
	select {
	case n := <-code:
		if ferr != nil && !errors.Is(ferr, context.Canceled) {
			l.stderr.line("[mur run] ", "warning: the entry's output could not be followed: "+ferr.Error())
		}
		return n
	case s := <-l.cfg.Signals:
		cancel()
		<-code
		return 128 + int(s.(syscall.Signal))
	case <-ctx.Done():
		cancel()
		<-code
		return 128 + int(syscall.SIGTERM)
	}
}

// printKubeFormation is the formation line once every pod is ready: the
// same wire.Formation under --json (pid 0: a member is a pod, not a local
// process; its URL the Service's), else FCLI-2's block naming pods.
func (l *launch) printKubeFormation(s kube.Spec) {
	names := kube.NamesOf(s.FormationID)
	fl := wire.Formation{Entry: l.f.Entry().Name, FormationID: s.FormationID, Peers: []wire.Peer{}}
	for _, m := range l.f.Peers() {
		fl.Peers = append(fl.Peers, wire.Peer{Name: m.Name, URL: names.URL(s.Namespace, m.Name), Workdir: kube.WorkDir})
	}
	if l.cfg.JSON {
		_, _ = l.cfg.Stdout.Write(fl.Line())
		return
	}
	width := len(fl.Entry)
	for _, p := range fl.Peers {
		width = max(width, len(p.Name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "formation: %s (Kubernetes namespace %s, object configmap/%s)\n", s.FormationID, s.Namespace, names.Formation())
	for i, p := range fl.Peers {
		m := l.f.Peers()[i]
		fmt.Fprintf(&b, "  peer   %-*s  %s@%s  pod %s  %s\n", width, p.Name, m.Capsule, m.Version, names.Member(p.Name), p.URL)
	}
	fmt.Fprintf(&b, "  entry  %-*s  pod %s\n", width, fl.Entry, names.Member(fl.Entry))
	l.stderr.write([]byte(b.String()))
}
