//go:build kube

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/murmur-go/mur/launcher/kube"
)

// kubeMemberCommand is how a member pod starts (docs/kubernetes.md):
//
//	mur __kube-member --lease <name> --channel <file> -- run <args>…
//
// It stands in for the launcher inside the pod: the mounted channel file
// becomes the member's fd 3, and a pipe it holds becomes the member's
// lifeline on fd 4, closed once the formation's Lease expires or is gone,
// so the member winds down as it does when a local launcher ends (LIFE-3).
const kubeMemberCommand = "__kube-member"

// kubeLeasePoll is how often the member pod reads the Lease.
const kubeLeasePoll = time.Second

func runKubeMember(env *Env, args []string) int {
	var lease, channel string
	for len(args) > 0 && args[0] != "--" {
		if len(args) < 2 {
			fmt.Fprintf(env.Stderr, "error: %s: flag needs an argument: %s\n", kubeMemberCommand, args[0])
			return 2
		}
		switch args[0] {
		case "--lease":
			lease = args[1]
		case "--channel":
			channel = args[1]
		default:
			fmt.Fprintf(env.Stderr, "error: %s: unknown flag %s\n", kubeMemberCommand, args[0])
			return 2
		}
		args = args[2:]
	}
	if len(args) < 2 || lease == "" || channel == "" {
		fmt.Fprintf(env.Stderr, "error: usage: mur %s --lease <name> --channel <file> -- run <args>\n", kubeMemberCommand)
		return 2
	}
	ns := env.Getenv("MURMUR_KUBE_NAMESPACE")
	c, defNS, err := kube.Connect("", "") // in a pod: its ServiceAccount
	if err != nil {
		fmt.Fprintf(env.Stderr, "error: the member cannot reach its cluster to watch the formation's Lease: %v\n", err)
		return 1
	}
	if ns == "" {
		ns = defNS
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	// A Lease already lapsed means the launcher is gone: nothing starts.
	if why, err := c.LeaseEnded(ctx, ns, lease); err != nil || why != "" {
		if err != nil {
			why = "the formation's Lease cannot be read: " + err.Error()
		}
		fmt.Fprintf(env.Stderr, "error: the member does not start: %s\n", why)
		return 1
	}
	ch, err := os.Open(channel)
	if err != nil {
		fmt.Fprintf(env.Stderr, "error: the member's channel: %v\n", err)
		return 1
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		ch.Close()
		fmt.Fprintf(env.Stderr, "error: the member's lifeline: %v\n", err)
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(env.Stderr, "error: %v\n", err)
		return 1
	}
	cmd := exec.Command(self, args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "MURMUR_FORMATION_CHANNEL=3", "MURMUR_FORMATION_LIFELINE=4")
	cmd.ExtraFiles = []*os.File{ch, lifeR}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	err = cmd.Start()
	ch.Close()
	lifeR.Close()
	if err != nil {
		lifeW.Close()
		fmt.Fprintf(env.Stderr, "error: the member could not be started: %v\n", err)
		return 1
	}
	exited := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { // ends with the member: stop ends it
		why, err := c.AwaitLeaseEnd(ctx, ns, lease, kubeLeasePoll)
		if err == nil {
			fmt.Fprintf(env.Stderr, "[mur] %s; the member winds down\n", why)
			lifeW.Close()
		}
	})
	wg.Go(func() { // the pod's SIGTERM is the member's
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-exited:
				return
			}
		}
	})
	err = cmd.Wait()
	close(exited)
	stop()
	lifeW.Close()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}
