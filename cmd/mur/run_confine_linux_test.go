package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/proc"
)

// Under containment scoped, network.allow entries that all
// name a port hold a shell command's TCP connects to those ports (Landlock
// ABI ≥ 4): a connect elsewhere is refused, one to an allowed port works.
func TestRunScopedConnectPorts_ISSUE9(t *testing.T) {
	testmur.NeedLandlock(t, 4, proc.LandlockABI) // network rules
	var ports []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports = append(ports, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	}
	allowed, other := ports[0], ports[1]
	command := fmt.Sprintf(`(exec 3<>/dev/tcp/127.0.0.1/%s) 2>/dev/null && echo other-open || echo other-refused; `+
		`(exec 3<>/dev/tcp/127.0.0.1/%s) && echo allowed-open`, other, allowed)
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: netter\nversion: \"1.0.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n" +
			"capabilities:\n  containment: scoped\n  shell:\n    allow: [bash]\n  network:\n    allow: [\"127.0.0.1:" + allowed + "\"]\n",
		"script.yaml": fmt.Sprintf("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: bash, input: {command: %q}}]\n      - text: \"{{tool_result}}\"\n", command),
	})
	out, errOut, code := e.run(t, "--capsule", e.dir, "--task", "connect")
	if code != 0 || !strings.Contains(out, "Stdout:\nother-refused\nallowed-open\n") {
		t.Errorf("mur run = %d, stdout %q, stderr %q; want other-refused then allowed-open", code, out, errOut)
	}
}

// Under containment scoped, a tool process may bind and listen on no TCP
// port but those capabilities.network.listen names (Landlock ABI ≥ 4): not
// another, not an OS-chosen one. (A tool used to be able to run a server
// on any port, a sibling member's door port included.)
func TestRunScopedListenPorts(t *testing.T) {
	testmur.NeedLandlock(t, 4, proc.LandlockABI) // network rules
	const python = "/usr/bin/python3"            // a system path: granted to every tool
	if _, err := os.Stat(python); err != nil {
		t.Skipf("no %s: %v", python, err)
	}
	var ports []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
		ln.Close() // free again: the tool tries to bind it
	}
	allowed, other := ports[0], ports[1]
	command := python + " -c \"import socket,sys\nfor p in sys.argv[1:]:\n  s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n" +
		"  try: s.bind(('127.0.0.1',int(p))); s.listen(); print('listen',p)\n  except OSError as e: print('refused',p,e.errno)\n\" " + other + " 0 " + allowed
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: listener\nversion: \"1.0.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n" +
			"capabilities:\n  containment: scoped\n  shell:\n    allow: [bash]\n  network:\n    listen: [" + allowed + "]\n",
		"script.yaml": fmt.Sprintf("script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: bash, input: {command: %q}}]\n      - text: \"{{tool_result}}\"\n", command),
	})
	out, errOut, code := e.run(t, "--capsule", e.dir, "--task", "listen")
	if want := "Stdout:\nrefused " + other + " 13\nrefused 0 13\nlisten " + allowed + "\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("mur run = %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
}
