// Command probe is what a hostile tool tries against its own runtime and
// every other process it can see: given the start of a secret (in hex, so
// that no command line holds it) and the pids to try, it prints one
// "reached: …" line per attempt that got through and "probe done" at the
// end.
package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Println("usage: probe <secret prefix in hex> <pid>...")
		os.Exit(2)
	}
	secret, err := hex.DecodeString(os.Args[1])
	if err != nil || len(secret) == 0 {
		fmt.Println("usage: probe <secret prefix in hex> <pid>...")
		os.Exit(2)
	}
	for _, arg := range os.Args[2:] {
		target, err := strconv.Atoi(arg)
		if err != nil {
			fmt.Println("usage: probe <secret prefix in hex> <pid>...")
			os.Exit(2)
		}
		tryThreads(target)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		for _, f := range []string{"environ", "cmdline"} {
			if b, err := os.ReadFile(p + "/" + f); err == nil && bytes.Contains(b, secret) {
				fmt.Println("reached: secret in", p+"/"+f)
			}
		}
	}
	fmt.Println("probe done")
}

// tryThreads tries to reach every thread of the process target: its mem,
// its environ, process_vm_readv and PTRACE_SEIZE.
func tryThreads(target int) {
	tids, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", target))
	if len(tids) == 0 {
		tids = []string{fmt.Sprintf("/proc/%d/task/%d", target, target)}
	}
	for _, dir := range tids {
		tid, _ := strconv.Atoi(filepath.Base(dir))
		if f, err := os.Open(dir + "/mem"); err == nil {
			fmt.Println("reached: open", dir+"/mem")
			f.Close()
		}
		if b, err := os.ReadFile(dir + "/environ"); err == nil && len(b) > 0 {
			fmt.Println("reached: read", dir+"/environ")
		}
		local := iovec{base: uintptr(unsafe.Pointer(&readBuf[0])), len: 8}
		remote := iovec{base: 0xc000000000, len: 8} // where a Go heap starts
		n, _, errno := syscall.Syscall6(processVMReadv(), uintptr(tid),
			uintptr(unsafe.Pointer(&local)), 1, uintptr(unsafe.Pointer(&remote)), 1, 0)
		if errno == 0 && n > 0 {
			fmt.Println("reached: process_vm_readv", tid)
		}
		// PTRACE_SEIZE does not stop the thread; the tracer's exit detaches it.
		if _, _, errno := syscall.Syscall6(syscall.SYS_PTRACE, 0x4206, uintptr(tid), 0, 0, 0, 0); errno == 0 {
			fmt.Println("reached: ptrace", tid)
		}
	}
}

type iovec struct{ base, len uintptr }

var readBuf [8]byte // process_vm_readv's destination: a global never moves

func processVMReadv() uintptr {
	if runtime.GOARCH == "arm64" {
		return 270
	}
	return 310 // amd64
}
