package testmur

import (
	"os/exec"
	goruntime "runtime"
	"sync"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// The kernel sends a child its parent-death signal when the thread that
// forked it ends, not the process (golang/go#27505), and the Go runtime ends
// a thread whenever a goroutine that locked it returns. So every child is
// forked by one goroutine locked to its thread for the life of the test
// binary: no other goroutine ever runs on that thread, so it ends only with
// the process. It has no way to stop by design: its thread's end is the
// event the children are tied to.
var starter struct {
	once sync.Once
	reqs chan startReq
}

type startReq struct {
	cmd *exec.Cmd
	err chan error // buffered: serve never blocks on it
}

func start(cmd *exec.Cmd, sig syscall.Signal) error {
	attr := syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		attr = *cmd.SysProcAttr // a copy: callers may share one SysProcAttr
	}
	if attr.Pdeathsig == 0 {
		attr.Pdeathsig = sig
	}
	cmd.SysProcAttr = &attr
	starter.once.Do(func() {
		starter.reqs = make(chan startReq)
		go serve(starter.reqs)
	})
	req := startReq{cmd: cmd, err: make(chan error, 1)}
	starter.reqs <- req
	return <-req.err
}

// serve starts every command on its locked thread; it never returns.
func serve(reqs <-chan startReq) {
	goruntime.LockOSThread()
	for req := range reqs {
		req.err <- req.cmd.Start()
	}
}
