package proc

import (
	"os"
	"syscall"
	"time"
)

// EndAdopted SIGKILLs what this process adopted as a subreaper — a live
// child it did not start (no pidfd of its names it: a process whose own
// parent, a member killed outright, is gone) — with the groups they lead
// and everything below them, again until none is left or StopKillWait has
// passed. A child this process started is never touched. Where os/exec
// holds no pidfds it does nothing: adopted and started children cannot be
// told apart.
func EndAdopted() {
	if !pidfdsUsed() {
		return
	}
	self := os.Getpid()
	deadline := time.Now().Add(StopKillWait)
	for {
		owned := pidfdPIDs()
		all := processes()
		kids := map[int][]Process{}
		var queue []Process
		for _, p := range all {
			kids[p.PPID] = append(kids[p.PPID], p)
			if p.PPID == self && !owned[p.PID] {
				queue = append(queue, p)
			}
		}
		if len(queue) == 0 || time.Now().After(deadline) {
			return
		}
		var tree []Process
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			tree = append(tree, p)
			queue = append(queue, kids[p.PID]...)
		}
		signalAll(tree, syscall.SIGKILL)
		time.Sleep(stopPoll)
	}
}
