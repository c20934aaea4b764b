package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// TestSpawnerUnreadable_DLG6: a MURMUR_SPAWNER that is no spawner handle,
// or a MURMUR_SPAWNER_LIFELINE that is not this session's lifeline,
// refuses the launch with E-RUN-020 — before any directory exists.
func TestSpawnerUnreadable_DLG6(t *testing.T) {
	w := newWorld(t)
	dir := w.put(t, quick("child", ""))
	const good = `{"session_id":"ses_0000000000000000000000000000beef","context_id":"","delegation_id":"dlg_0000000000000000000000000000cafe","url":"http://127.0.0.1:9","trust":"trusted"}`
	pipe := func(first string) func(t *testing.T) *os.File {
		return func(t *testing.T) *os.File {
			r, wr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := wr.WriteString(first); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); wr.Close() })
			return r
		}
	}
	file := func(t *testing.T) *os.File {
		f, err := os.Create(filepath.Join(t.TempDir(), "f"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	cases := []struct {
		name, handle, lifeline string
		fd3                    func(t *testing.T) *os.File
		want                   string
	}{
		{"handle not JSON", "{not json", "3", pipe(""),
			"MURMUR_SPAWNER does not carry a readable spawner handle: it is not one JSON object with session_id, context_id, delegation_id, url and trust"},
		{"handle without lifeline", good, "", nil,
			"MURMUR_SPAWNER_LIFELINE does not carry this session's spawner lifeline: it is not set, but MURMUR_SPAWNER is"},
		{"lifeline without handle", "", "3", pipe(""),
			"MURMUR_SPAWNER does not carry a readable spawner handle: it is not set, but MURMUR_SPAWNER_LIFELINE is"},
		{"remote url", `{"session_id":"ses_0000000000000000000000000000beef","context_id":"","delegation_id":"dlg_0000000000000000000000000000cafe","url":"http://example.com:80","trust":"trusted"}`, "3", pipe(""),
			"MURMUR_SPAWNER does not carry a readable spawner handle: its url is not a loopback http://host:port door"},
		{"descriptor not open", good, "3", nil,
			"MURMUR_SPAWNER_LIFELINE does not carry this session's spawner lifeline: descriptor 3 is not open"},
		{"a regular file", good, "3", file,
			"MURMUR_SPAWNER_LIFELINE does not carry this session's spawner lifeline: descriptor 3 is a regular file"},
		{"closed before its first line", good, "3", func(t *testing.T) *os.File {
			r, wr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			wr.Close()
			t.Cleanup(func() { r.Close() })
			return r
		}, "MURMUR_SPAWNER_LIFELINE does not carry this session's spawner lifeline: it closed before its first line"},
		{"another delegation", good, "3", pipe(`{"type":"spawner","delegation_id":"dlg_00000000000000000000000000000000","depth":1,"completion_token":"c","door_token":"d"}` + "\n"),
			"MURMUR_SPAWNER_LIFELINE does not carry this session's spawner lifeline: its first line names another delegation than MURMUR_SPAWNER"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := w.command(dir, "--task", "x")
			cmd.Env = append(cmd.Env, "MURMUR_SPAWNER="+c.handle, "MURMUR_SPAWNER_LIFELINE="+c.lifeline)
			if c.fd3 != nil {
				cmd.ExtraFiles = []*os.File{c.fd3(t)}
			}
			stdout, stderr, code := testmur.Exec(t, cmd)
			want := "error[E-RUN-020]: " + c.want + "\n  hint: unset it to run this capsule directly\n"
			if code != 1 || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr\n%s\nwant\n%s", code, stdout, stderr, want)
			}
			if _, err := os.Stat(filepath.Join(dir, ".murmur")); !os.IsNotExist(err) {
				t.Errorf("a refused launch made %s/.murmur: %v", dir, err)
			}
			if _, err := os.Stat(filepath.Join(w.home, "records")); !os.IsNotExist(err) {
				t.Errorf("a refused launch made records: %v", err)
			}
		})
	}
}
