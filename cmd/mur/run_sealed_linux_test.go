package main

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sealedBash is scopedBash under containment sealed, with extra appended
// to the capabilities block.
func sealedBash(command, extra string) map[string]string {
	files := scopedBash(command)
	files["murmur.yaml"] = strings.Replace(files["murmur.yaml"], "containment: scoped", "containment: sealed", 1)
	return withCaps(files, extra)
}

// withCaps appends extra to files' capabilities block.
func withCaps(files map[string]string, extra string) map[string]string {
	files["murmur.yaml"] += extra
	return files
}

// freePort is a loopback port nothing listens on when it returns.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// A sealed tool is alone in a root of its own: /proc shows its init and its
// own processes only, the host's accounts, /etc/shadow, /var and its
// session's records beyond its HOME are absent, and neither the member's own
// door on 127.0.0.1 nor another loopback server of the host can be reached
// though network.allow names both (its network namespace has only lo of its
// own), while both answer a scoped tool.
func TestRunSealedToolIsAlone(t *testing.T) {
	needLandlock(t)
	port := freePort(t)
	host, err := net.Listen("tcp", "127.0.0.1:0") // a server of the host's, beside the door
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	go func() {
		for {
			c, err := host.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	hostPort := strconv.Itoa(host.Addr().(*net.TCPAddr).Port)
	allow := "  network:\n    allow: [\"127.0.0.1:" + strconv.Itoa(port) + "\", \"127.0.0.1:" + hostPort + "\"]\n"
	probe := `set -- /proc/[0-9]*; echo "procs=$# $1"; cut -d: -f1 /etc/passwd | tr '\n' ,; echo; ` +
		`test -e /etc/shadow || echo no-shadow; test -e /var || echo no-var; test -e "$HOME/../trace.jsonl" || echo no-trace; ` +
		`(exec 3<>/dev/tcp/127.0.0.1/` + strconv.Itoa(port) + `) 2>/dev/null && echo door-reached || echo door-unreachable; ` +
		`(exec 3<>/dev/tcp/127.0.0.1/` + hostPort + `) 2>/dev/null && echo host-reached || echo host-unreachable`
	for _, c := range []struct {
		class string
		files map[string]string
		want  string
	}{
		{"sealed", sealedBash(probe, allow), "Stdout:\nprocs=2 /proc/1\nroot,\nno-shadow\nno-var\nno-trace\ndoor-unreachable\nhost-unreachable\n"},
		{"scoped", withCaps(scopedBash(probe), allow), "door-reached\nhost-reached\n"},
	} {
		e := newRunEnv(t, c.files)
		out, errOut, code := e.run(t, "--capsule", e.dir, "--port", strconv.Itoa(port), "--task", "alone")
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s: mur run = %d, stdout %q, stderr %q; want %q", c.class, code, out, errOut, c.want)
		}
	}
}

// A sealed tool is held to capabilities.resources, and its shell record
// names the limit it met (the tool result's note too): a write past
// max_file_size_bytes stops at it (SIGXFSZ), and, as root (where the
// runtime makes the session's cgroup), a fork bomb stops at cgroup_pids_max
// and a memory hog is killed at cgroup_memory_bytes.
func TestRunSealedToolMeetsItsLimits(t *testing.T) {
	needLandlock(t)
	limits := "  resources:\n    max_file_size_bytes: 1048576\n    cgroup_pids_max: 40\n    cgroup_memory_bytes: 67108864\n"
	cases := []struct {
		name, command, want string
	}{
		{"file size", `head -c 3000000 /dev/zero > big; s=$?; echo "size=$(wc -c < big)"; exit $s`,
			"Exit code: 153\nStdout:\nsize=1048576\n"},
	}
	if os.Getuid() == 0 {
		cases = append(cases, struct{ name, command, want string }{"fork bomb",
			`sh -c 'i=0; while [ $i -lt 300 ]; do sleep 5 & i=$((i+1)); echo $i > n; done' 2>/dev/null; read n < n; echo "forked=$n"; test $n -lt 40`,
			"Exit code: 0\n"}, struct{ name, command, want string }{"memory hog",
			`awk 'BEGIN{s="x"; while(1) s=s s}'; echo "awk=$?"`, "Stdout:\nawk=137\n"})
	}
	for _, c := range cases {
		e := newRunEnv(t, sealedBash(c.command, limits))
		out, errOut, code := e.run(t, "--capsule", e.dir, "--task", "limits")
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s: mur run = %d, stdout %q, stderr %q; want %q", c.name, code, out, errOut, c.want)
		}
		note := map[string]string{"file size": `"resource_limit":"max_file_size_bytes"`, "fork bomb": `"resource_limit":"cgroup_pids_max"`,
			"memory hog": `"resource_limit":"cgroup_memory_bytes"`}[c.name]
		if tr := traces(t, e.home); !strings.Contains(tr, note) {
			t.Errorf("%s: the tool result in the trace does not name the limit %q:\n%s", c.name, note, tr)
		}
	}
}

// traces is every trace.jsonl under home, concatenated.
func traces(t *testing.T, home string) string {
	t.Helper()
	var all strings.Builder
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "trace.jsonl" {
			b, rerr := os.ReadFile(path)
			all.Write(b)
			return rerr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.String()
}

// --containment raises the floor and never lowers it: an advisory capsule
// run with --containment sealed runs its tool sealed, a sealed capsule run
// with --containment advisory stays sealed, and a class that does not exist
// is E-MAN-003.
func TestRunContainmentFlagOnlyRaises(t *testing.T) {
	needLandlock(t)
	probe := `set -- /proc/[0-9]*; echo "procs=$#"`
	for _, c := range []struct{ manifest, flag string }{{"advisory", "sealed"}, {"sealed", "advisory"}} {
		files := sealedBash(probe, "")
		files["murmur.yaml"] = strings.Replace(files["murmur.yaml"], "containment: sealed", "containment: "+c.manifest, 1)
		e := newRunEnv(t, files)
		out, errOut, code := e.run(t, "--capsule", e.dir, "--containment", c.flag, "--task", "floor")
		if code != 0 || !strings.Contains(out, "Stdout:\nprocs=2\n") {
			t.Errorf("%s capsule, --containment %s: mur run = %d, stdout %q, stderr %q; want the tool sealed", c.manifest, c.flag, code, out, errOut)
		}
		if tr := traces(t, e.home); !strings.Contains(tr, `"containment_declared":"sealed","containment_achieved":"sealed"`) {
			t.Errorf("%s capsule, --containment %s: session_start does not say sealed:\n%s", c.manifest, c.flag, tr)
		}
	}
	e := newRunEnv(t, sealedBash("true", ""))
	_, errOut, code := e.run(t, "--capsule", e.dir, "--containment", "strict", "--task", "x")
	if want := "error[E-MAN-003]: --containment: 'strict' is not one of advisory, scoped, sealed\n  hint: correct --containment\n"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("--containment strict = %d, stderr %q; want %q", code, errOut, want)
	}
}
