package proc

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processes reads every live process from /proc (zombies left out).
func processes() []Process {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]Process, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// readStat parses /proc/<pid>/stat; ok is false for a zombie or a process
// gone meanwhile.
func readStat(pid int) (Process, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Process{}, false
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return Process{}, false
	}
	f := strings.Fields(s[closing+1:]) // state ppid pgrp …
	if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
		return Process{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	return Process{PID: pid, PGID: pgid, PPID: ppid, Comm: s[open+1 : closing]}, true
}

// Descendants lists the live processes below this one: its children, theirs,
// and so on (an orphan adopted by a subreaper is its child again).
func Descendants() []Process {
	all := processes()
	kids := map[int][]Process{}
	for _, p := range all {
		kids[p.PPID] = append(kids[p.PPID], p)
	}
	var out []Process
	queue := []int{os.Getpid()}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, k := range kids[pid] {
			out = append(out, k)
			queue = append(queue, k.PID)
		}
	}
	return out
}

// StopDescendants ends every process below this one (the seed's
// "the session's end kills it"): SIGTERM to the process groups its
// descendants lead and to each descendant, SIGKILL to whatever is left after
// grace (again, until none is left, for ones forked meanwhile), then waits up
// to StopKillWait. cg, when not nil, is killed with the SIGKILL. It returns
// the processes still alive at the end. Call it where this process owns
// everything below it (mur run, the launcher), never inside a test binary
// that runs other tests' processes.
func StopDescendants(grace time.Duration, cg *Cgroup) []Process {
	ds := Descendants()
	if len(ds) == 0 && len(cg.Procs()) == 0 {
		return nil
	}
	signalAll(ds, syscall.SIGTERM)
	if !waitNone(grace) {
		cg.Kill()
		deadline := time.Now().Add(StopKillWait)
		for ds = Descendants(); len(ds) > 0 && time.Now().Before(deadline); ds = Descendants() {
			signalAll(ds, syscall.SIGKILL)
			waitNone(stopPoll * 5)
		}
	}
	cg.Kill()
	return Descendants()
}

// signalAll sends sig to the groups ds lead (never this process's own) and
// to each of ds.
func signalAll(ds []Process, sig syscall.Signal) {
	own := syscall.Getpgrp()
	led := map[int]bool{}
	for _, d := range ds {
		led[d.PID] = true
	}
	for _, d := range ds {
		if led[d.PGID] && d.PGID != own && d.PGID > 1 {
			_ = syscall.Kill(-d.PGID, sig)
			led[d.PGID] = false // once per group
		}
	}
	for _, d := range ds {
		_ = syscall.Kill(d.PID, sig)
	}
}

// waitNone waits up to d for this process to have no live descendant.
func waitNone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if len(Descendants()) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(stopPoll)
	}
}

// FindByEnv lists the live processes whose environment holds entry (such as
// MURMUR_SESSION_ID=ses_…, which every tool process of a session carries,
// SES-10) and that this user may read: what a session killed outright left
// running.
func FindByEnv(entry string) []Process {
	var out []Process
	want := []byte(entry)
	for _, p := range processes() {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(b), "\x00") {
			if kv == string(want) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
