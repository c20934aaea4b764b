package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	anthropicfake "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
	"github.com/murmur-go/mur/runtime/manifest"
)

// followNext runs a scaffold's "Next:" lines from dir as a user would: a
// cp of .env.example copies it with the key set to key, `ollama pull` is
// left out (the fake serves every model), a cd moves where the next lines
// run, mur commands run for real and must succeed; it returns the last
// one's stdout.
func (e *artEnv) followNext(t *testing.T, dir, stdout, key string) string {
	t.Helper()
	_, next, ok := strings.Cut(stdout, "\nNext:\n")
	if !ok {
		t.Fatalf("no Next: lines in\n%s", stdout)
	}
	var last string
	for _, line := range strings.Split(strings.TrimSuffix(next, "\n"), "\n") {
		c, _, _ := strings.Cut(strings.TrimSpace(line), "    #")
		words := strings.Fields(c)
		switch {
		case words[0] == "cp":
			data, err := os.ReadFile(filepath.Join(e.root, dir, words[1]))
			if err != nil {
				t.Fatal(err)
			}
			set := strings.Replace(string(data), "_KEY=\n", "_KEY="+key+"\n", 1)
			if set == string(data) {
				t.Fatalf("%s names no key to set:\n%s", words[1], data)
			}
			e.write(t, map[string]string{filepath.Join(dir, words[2]): set})
		case words[0] == "cd":
			dir = filepath.Join(dir, words[1])
		case words[0] == "ollama":
		case words[0] == "mur":
			out, errOut, code := e.mur(t, dir, quotedFields(c)[1:]...)
			if code != 0 {
				t.Fatalf("%s = %d\n%s%s", c, code, out, errOut)
			}
			last = out
		default:
			t.Fatalf("unexpected Next: line %q", line)
		}
	}
	return last
}

// quotedFields splits a command line on blanks, keeping a "…" group as one
// word without its quotes (all the scaffolds' Next: lines use).
func quotedFields(s string) []string {
	var out []string
	for i, part := range strings.Split(s, `"`) {
		if i%2 == 1 {
			out = append(out, part)
			continue
		}
		out = append(out, strings.Fields(part)...)
	}
	return out
}

// pointAt rewrites the scheme and host of the endpoint in the manifest at
// path to the fake's, keeping the path as mur new wrote it (…/v1 for the
// OpenAI SDK's base URL, none for Anthropic's).
func (e *artEnv) pointAt(t *testing.T, path, endpoint, fakeURL string) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	f, err := url.Parse(fakeURL)
	if err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(e.root, path)
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	was := u.Scheme + "://" + u.Host
	if !strings.Contains(string(data), "endpoint: "+endpoint+" ") {
		t.Fatalf("%s does not hold endpoint %s as its preset writes it:\n%s", path, endpoint, data)
	}
	e.write(t, map[string]string{path: strings.Replace(string(data), "endpoint: "+was, "endpoint: "+f.Scheme+"://"+f.Host, 1)})
}

// TestNewDriver: mur new <name> --driver openai|anthropic|ollama scaffolds a
// capsule whose endpoint, model and key reference are the provider's, with a
// .env.example naming the key; followed as its Next: lines say, with only
// the endpoint's host moved to a fake of that provider, it runs.
func TestNewDriver(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"openai", "anthropic", "ollama"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, _ := manifest.FindPreset(name)
			e := newArtEnv(t)
			out, errOut, code := e.mur(t, "", "new", "bot", "--driver", name)
			if code != 0 || errOut != "" {
				t.Fatalf("mur new --driver %s = %d %s", name, code, errOut)
			}
			var files strings.Builder
			for _, f := range []string{"murmur.yaml", ".env.example", ".gitignore"} {
				if data, err := os.ReadFile(filepath.Join(e.root, "bot", f)); err == nil {
					files.WriteString("=== " + f + "\n" + string(data))
				}
			}
			e.golden(t, "new-driver-"+name, "=== stdout\n"+out+files.String())

			var fakeURL string
			var model func() []string
			switch p.Kind {
			case manifest.KindAnthropic:
				srv := anthropicfake.New(anthropicfake.Config{APIKey: "sk-test", Model: p.Model})
				defer srv.Close()
				srv.Enqueue(anthropicfake.Text("the files are here"))
				fakeURL = srv.URL
				model = func() []string {
					var ms []string
					for _, r := range srv.Requests() {
						ms = append(ms, r.Decoded.Model)
					}
					return append(ms, srv.Failures()...)
				}
			default:
				key := "sk-test"
				if p.Keyless {
					key = ""
				}
				srv := fake.New(fake.Config{APIKey: key, Model: p.Model})
				defer srv.Close()
				srv.Enqueue(fake.Text("the files are here"))
				fakeURL = srv.URL
				model = func() []string {
					var ms []string
					for _, r := range srv.Requests() {
						ms = append(ms, r.Decoded.Model)
					}
					return append(ms, srv.Failures()...)
				}
			}
			e.pointAt(t, "bot/murmur.yaml", p.Endpoint, fakeURL)
			last := e.followNext(t, "", out, "sk-test")
			if !strings.HasSuffix(last, "the files are here\nstatus:  ok\n") {
				t.Errorf("mur run = %q", last)
			}
			if got := model(); len(got) != 1 || got[0] != p.Model {
				t.Errorf("the fake saw %v, want one request for %s and no failure", got, p.Model)
			}
		})
	}
}

// TestNewRosterDriver: mur new --roster crew --driver ollama puts both
// members on Ollama's endpoint as written; installed and launched as its
// Next: lines say, the formation runs: lead hands the task to worker with
// call-member and answers with worker's answer (FCLI-9).
func TestNewRosterDriver(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	out, errOut, code := e.mur(t, "", "new", "--roster", "crew", "--driver", "ollama")
	if code != 0 || errOut != "" {
		t.Fatalf("mur new --roster --driver ollama = %d %s", code, errOut)
	}
	srv := fake.New(fake.Config{Model: "llama3.1:8b"})
	defer srv.Close()
	srv.SetHandler(func(r fake.Request) fake.Reply {
		msgs := r.Decoded.Messages
		system, last := msgs[0].Text(), msgs[len(msgs)-1]
		switch {
		case strings.Contains(system, "You do the task another member hands you"):
			return fake.Text("worker did it")
		case last.Role == "user" && strings.Contains(last.Text(), "worker did it"):
			return fake.Text("lead says: worker did it")
		case last.Role == "tool":
			return fake.Text("waiting for worker")
		}
		return fake.Calls(fake.ToolCall{Name: "call-member", Arguments: `{"member":"worker","task":"build"}`})
	})
	for _, m := range []string{"lead", "worker"} {
		e.pointAt(t, "crew/"+m+"/murmur.yaml", "http://localhost:11434/v1", srv.URL)
	}
	last := e.followNext(t, "", strings.Replace(out, "<your task>", "build", 1), "")
	if !strings.HasSuffix(last, "lead says: worker did it\nstatus:  ok\n") {
		t.Errorf("mur run --roster = %q", last)
	}
	if f := srv.Failures(); len(f) > 0 {
		t.Errorf("bad requests: %v", f)
	}
}
