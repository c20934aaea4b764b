package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// A fenced block's info string says what the tutorial test does with it:
// "sh" runs it, "text" checks the output of the sh block before it,
// "yaml file=<path>" writes it to <path> (relative to where the blocks
// run), and "sh no-run" / "yaml no-run" are only shown. Any other info
// string fails the test, so every block is one of these.
type block struct {
	info, body string
	line       int
}

var fence = regexp.MustCompile("^```(.*)$")

// blocks returns the fenced blocks of a Markdown file, in order.
func blocks(t *testing.T, path string) []block {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	var body []string
	for i, l := range strings.Split(string(data), "\n") {
		m := fence.FindStringSubmatch(l)
		switch {
		case m != nil && cur == nil:
			cur, body = &block{info: strings.TrimSpace(m[1]), line: i + 1}, nil
		case m != nil && m[1] == "":
			cur.body = strings.Join(body, "\n") + "\n"
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body = append(body, l)
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: a block is never closed", path, cur.line)
	}
	return out
}

// expected turns a text block's line into a pattern: <…> stands for any
// text, everything else is literal.
func expected(line string) *regexp.Regexp {
	parts := regexp.MustCompile(`<[^<>]+>`).Split(line, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// TestTutorial runs docs/tutorial.md as a reader would: every sh block in
// order, in one fresh directory with the real mur first on PATH and a
// MURMUR_HOME of its own, each text block checked line by line against the
// output of the block before it.
func TestTutorial(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs mur")
	}
	bin := filepath.Join(t.TempDir(), "bin")
	if out, err := testmur.Combined(exec.Command("go", "build", "-o", filepath.Join(bin, "mur"), testmur.Mur)); err != nil {
		t.Fatalf("build mur: %v\n%s", err, out)
	}
	dir := testmur.TempDir(t)
	home := filepath.Join(dir, ".murmur-home")
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cwdFile := filepath.Join(dir, "cwd")
	cwd := work
	var last string
	ran := 0
	for _, b := range blocks(t, "tutorial.md") {
		where := "tutorial.md:" + strconv.Itoa(b.line)
		switch {
		case b.info == "sh":
			cmd := exec.Command("sh", "-e", "-c", "cd \"$TUTORIAL_CWD\"\n"+b.body+"pwd > \"$TUTORIAL_CWD_FILE\"\n")
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "MURMUR_HOME="+home,
				"TUTORIAL_CWD="+cwd, "TUTORIAL_CWD_FILE="+cwdFile)
			stdout, stderr, code := testmur.Exec(t, cmd)
			if code != 0 {
				t.Fatalf("%s: the block exited %d\n%s\nstdout:\n%s\nstderr:\n%s", where, code, b.body, stdout, stderr)
			}
			data, err := os.ReadFile(cwdFile)
			if err != nil {
				t.Fatal(err)
			}
			cwd, last = strings.TrimSpace(string(data)), stdout+stderr
			ran++
		case b.info == "text":
			if last == "" {
				t.Fatalf("%s: a text block follows no sh block", where)
			}
			lines := strings.Split(last, "\n")
			for _, want := range strings.Split(strings.TrimRight(b.body, "\n"), "\n") {
				if want == "" {
					continue
				}
				re, found := expected(want), false
				for _, got := range lines {
					if re.MatchString(got) {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("%s: no line of the output reads %q; the output:\n%s", where, want, last)
				}
			}
			last = ""
		case strings.HasPrefix(b.info, "yaml file="):
			path := filepath.Join(cwd, strings.TrimPrefix(b.info, "yaml file="))
			if err := os.WriteFile(path, []byte(b.body), 0o644); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		case b.info == "sh no-run" || b.info == "yaml no-run":
		default:
			t.Errorf("%s: the block's info string %q is none of sh, text, yaml file=<path>, sh no-run, yaml no-run", where, b.info)
		}
	}
	if ran == 0 {
		t.Fatal("the tutorial ran no block")
	}
}

// TestProcessModelPicture: docs/images/process-model.svg is drawn from
// process-model.dot: every node the .dot declares is in the picture, and
// the picture has no node the .dot lacks (render it again after an edit).
func TestProcessModelPicture(t *testing.T) {
	dot, err := os.ReadFile("images/process-model.dot")
	if err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile("images/process-model.svg")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*([a-z_]+)\s+\[label=`).FindAllStringSubmatch(string(dot), -1) {
		declared[m[1]] = true
	}
	drawn := map[string]bool{}
	for _, m := range regexp.MustCompile(`<g id="node\d+" class="node">\s*<title>([a-z_]+)</title>`).FindAllStringSubmatch(string(svg), -1) {
		drawn[m[1]] = true
	}
	if len(declared) == 0 {
		t.Fatal("process-model.dot declares no node")
	}
	for n := range declared {
		if !drawn[n] {
			t.Errorf("the picture lacks the node %s: render process-model.dot again", n)
		}
	}
	for n := range drawn {
		if !declared[n] {
			t.Errorf("the picture has a node %s that process-model.dot does not declare: render it again", n)
		}
	}
}
