package proc

import (
	"errors"
	"fmt"
	"os/exec"
	goruntime "runtime"
	"sync"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// LandlockABI is the Landlock ABI version the kernel offers, or an error
// saying why there is none.
func LandlockABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0, fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	if v < 1 {
		return 0, ErrNoLandlock
	}
	return v, nil
}

// workdirRights are the rights under a read-write path: everything Landlock
// handles but making character and block devices (a root command could
// otherwise make a disk's node in its workdir and read the disk through it).
const workdirRights = landlock.AccessFSSet(0) | ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
	ll.AccessFSReadDir | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeDir | ll.AccessFSMakeReg |
	ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate |
	ll.AccessFSIoctlDev

// jail is a locked OS thread that restricted itself once with the policy's
// Landlock ruleset and then starts every command of the session: a child
// inherits the domain of the thread that forked it, so every tool process
// of the session shares one domain (they can signal one another; nothing
// outside can be reached), while the rest of the Go process stays
// unrestricted. No re-exec, so confinement costs a channel round trip
// (BENCHMARKS.md). The thread lives until close: Pdeathsig is tied to the
// forking thread, so the children must not outlive it.
type jail struct {
	reqs chan spawnReq
	done chan struct{}
	once sync.Once
}

type spawnReq struct {
	cmd *exec.Cmd
	err chan error
}

func newJail(p *Policy) (*jail, error) {
	if _, err := LandlockABI(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoLandlock, err)
	}
	cfg := landlock.Config{HandledAccessFS: landlock.V7.HandledAccessFS, Scoped: landlock.V7.Scoped}
	if p.RestrictConnect {
		cfg.HandledAccessNet = ll.AccessNetConnectTCP
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(p.rules()...)
	if err != nil {
		return nil, fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		return nil, ErrNoLandlock
	}
	j := &jail{reqs: make(chan spawnReq), done: make(chan struct{})}
	ready := make(chan error, 1) // buffered: serve never blocks on it
	go j.serve(fd, flags, ready) // owned by j: ends at close
	if err := <-ready; err != nil {
		return nil, err
	}
	return j, nil
}

// rules turns the policy into Landlock rules over the paths that exist.
func (p *Policy) rules() []landlock.Rule {
	var rules []landlock.Rule
	rwDirs, rwFiles := existing(p.ReadWrite)
	roDirs, roFiles := existing(append(append([]string(nil), SystemPaths...), p.ReadOnly...))
	_, devRW := existing(devicesRW)
	_, devRO := existing(devicesRO)
	if len(rwDirs) > 0 {
		rules = append(rules, landlock.PathAccess(workdirRights, rwDirs...))
	}
	if len(rwFiles)+len(devRW) > 0 {
		rules = append(rules, landlock.RWFiles(append(rwFiles, devRW...)...))
	}
	if len(roDirs) > 0 {
		rules = append(rules, landlock.RODirs(roDirs...))
	}
	if len(roFiles)+len(devRO) > 0 {
		rules = append(rules, landlock.ROFiles(append(roFiles, devRO...)...))
	}
	if p.RestrictConnect {
		for _, port := range p.Ports {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	return rules
}

// serve restricts its thread and starts commands until close. The thread is
// never unlocked: when serve returns, the Go runtime ends it instead of
// handing a restricted thread to other goroutines (and it makes new threads
// from a clean template thread, never from a locked one).
func (j *jail) serve(fd int, flags uint32, ready chan<- error) {
	defer close(j.done)
	goruntime.LockOSThread()
	err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	if err == nil {
		err = ll.LandlockRestrictSelf(fd, flags)
	}
	_ = unix.Close(fd)
	if err != nil {
		ready <- fmt.Errorf("landlock_restrict_self: %w", err)
		return
	}
	ready <- nil
	for req := range j.reqs {
		req.err <- req.cmd.Start()
	}
}

var errJailClosed = errors.New("the session's confined starter is closed")

func (j *jail) start(cmd *exec.Cmd) (err error) {
	req := spawnReq{cmd: cmd, err: make(chan error, 1)} // buffered: serve never blocks
	defer func() {
		if recover() != nil { // sent on a closed channel
			err = errJailClosed
		}
	}()
	j.reqs <- req
	return <-req.err
}

func (j *jail) close() {
	j.once.Do(func() { close(j.reqs) })
	<-j.done
}
