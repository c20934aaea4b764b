package capsule_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/capsule"
	"github.com/murmur-go/mur/runtime/session"
)

// ExampleServe runs one capsule in this process, as mur run does: prepare
// its launch, bind its door, and Serve until its launch task has ended.
// The capsule's scripted driver answers without a model.
func ExampleServe() {
	dir, err := os.MkdirTemp("", "capsule-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"murmur.yaml": "name: hello\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n",
		"script.yaml": "script_version: 1\nfallback:\n  turns:\n    - text: \"hello from the capsule\"\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			fmt.Println(err)
			return
		}
	}
	home := filepath.Join(dir, "home") // $MURMUR_HOME: the records and the running record
	getenv := func(k string) string {
		if k == "MURMUR_HOME" {
			return home
		}
		return ""
	}
	task := "say hello"
	l, err := session.Prepare(session.Options{ManifestPath: filepath.Join(dir, "murmur.yaml"), Task: &task, Getenv: getenv, Cwd: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		l.Close()
		fmt.Println(err)
		return
	}
	// Serve owns l and ln from here; cancelling its context winds the
	// session down as a first SIGTERM would.
	res, err := capsule.Serve(context.Background(), l, ln, capsule.Config{Home: home, Stdout: io.Discard, Stderr: os.Stderr})
	if err != nil {
		fmt.Println(err)
		return
	}
	answer, err := os.ReadFile(filepath.Join(res.RecordsDir, "out", "result.txt"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.ExitStatus)
	fmt.Println(string(answer))
	// Output:
	// ok
	// hello from the capsule
}
