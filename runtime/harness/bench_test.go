package harness_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/harnesstest/clis"
	"github.com/murmur-go/mur/internal/testmur"
	anthropic "github.com/murmur-go/mur/runtime/driver/anthropic/fake"
	openai "github.com/murmur-go/mur/runtime/driver/openai/fake"
	"github.com/murmur-go/mur/runtime/harness"
)

// BenchmarkSpawnToFirstEvent is a run's overhead without the model: from
// harness.Start to the first event its stream reports (the session id),
// for the fake harness (mur's own share: spawn, pipes, the parser) and each
// real CLI against the fakes (its own start-up on top). It reports the
// median of the iterations as median-ms, and the CLI's `--version` time
// (its bare start-up) as version-ms for context.
//
//	MURMUR_HARNESS_E2E=1 go test ./runtime/harness -run '^$' -bench SpawnToFirstEvent -benchtime 20x
func BenchmarkSpawnToFirstEvent(b *testing.B) {
	b.Run("fakeharness", func(b *testing.B) {
		bin := filepath.Join(b.TempDir(), "claude")
		if out, err := testmur.Combined(exec.Command("go", "build", "-o", bin, "github.com/murmur-go/mur/internal/harnesstest/fakeharness")); err != nil {
			b.Fatalf("build: %v\n%s", err, out)
		}
		script := filepath.Join(b.TempDir(), "script.json")
		if err := os.WriteFile(script, []byte(`{"runs":[{"steps":[{"answer":"ok"}]}]}`), 0o644); err != nil {
			b.Fatal(err)
		}
		r := newRig(b, harness.Claude)
		benchSpawn(b, r, bin, "", "FAKE_HARNESS_SCRIPT="+script)
	})
	b.Run("claude-code", func(b *testing.B) {
		bin := clis.Claude(b)
		fake := anthropic.NewHarness(anthropic.Config{APIKey: "sk-ant-oat01-bench"})
		defer fake.Close()
		fake.SetHandler(func(anthropic.HarnessCapture) anthropic.Reply { return anthropic.Text("ok") })
		r := newRig(b, harness.Claude)
		clis.ClaudeHome(b, r.home, "sk-ant-oat01-bench")
		benchSpawn(b, r, bin, "", "ANTHROPIC_BASE_URL="+fake.URL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	})
	b.Run("codex", func(b *testing.B) {
		bin := clis.Codex(b)
		fake := openai.NewResponses(openai.Config{})
		defer fake.Close()
		fake.SetHandler(func(openai.ResponsesCapture) openai.Reply { return openai.Reply{Text: "ok"} })
		r := newRig(b, harness.Codex)
		benchSpawn(b, r, clis.CodexWrapper(b, b.TempDir(), bin, fake.URL), "fake-model")
	})
}

// benchSpawn spawns bin as r's dialect b.N times, each to its end, timing
// Start to the first event.
func benchSpawn(b *testing.B, r *rig, bin, model string, extra ...string) {
	argv, env := r.spawnArgs(bin, model, "")
	env = append(env, extra...)
	var firsts, versions []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		_ = testmur.RunCmd(exec.Command(bin, "--version"))
		versions = append(versions, time.Since(t0))
		r.br.BeginRun()
		start := time.Now()
		p, err := harness.Start(harness.Spawn{Argv: argv, Env: env, Dir: r.work, Stdin: []byte("hello")})
		if err != nil {
			b.Fatal(err)
		}
		parser, first := r.d.NewParser(), time.Duration(0)
		for line := range p.Lines() {
			if evs := parser.Line(line); first == 0 && len(evs) > 0 {
				first = time.Since(start)
			}
		}
		p.Wait()
		r.br.EndRun()
		if first == 0 {
			b.Fatal("the run reported no event")
		}
		firsts = append(firsts, first)
	}
	b.ReportMetric(ms(median(firsts)), "median-ms")
	b.ReportMetric(ms(median(versions)), "version-ms")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
