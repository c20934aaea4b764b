// Command probe is what a hostile tool tries against its own runtime and
// every other process it can see: given the runtime's pid and the start of a
// secret (in hex, so that no command line holds it), it prints one "reached: …" line per attempt that got through and
// "probe done" at the end. The secret itself is never in its argv.
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
	target, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Println("usage: probe <runtime pid> <secret prefix in hex>")
		os.Exit(2)
	}
	secret, err := hex.DecodeString(os.Args[2])
	if err != nil || len(secret) == 0 {
		fmt.Println("usage: probe <runtime pid> <secret prefix in hex>")
		os.Exit(2)
	}
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

type iovec struct{ base, len uintptr }

var readBuf [8]byte // process_vm_readv's destination: a global never moves

func processVMReadv() uintptr {
	if runtime.GOARCH == "arm64" {
		return 270
	}
	return 310 // amd64
}
