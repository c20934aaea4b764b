package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/murmur-go/mur/internal/testmur"
)

// chromiumInstall is what makes the browser tests runnable; .ci/run does it.
const chromiumInstall = "apt-get install -y chromium"

// chromiumPath finds Debian's chromium, failing the test (never skipping
// it) with the command that installs it.
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("chromium is not installed, and this test drives the view in a real browser: install it with `%s` (.ci/run does)", chromiumInstall)
	return ""
}

// browser starts a headless chromium with a fresh profile directory and
// returns a tab's context. At cleanup the browser is closed, and the test
// fails if any process of it is still alive.
func browser(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	var profile string
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(1280, 800),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			// chromedp makes a fresh --user-data-dir per browser; it names the
			// browser's processes, every one of which carries it.
			for _, a := range cmd.Args {
				if d, ok := strings.CutPrefix(a, "--user-data-dir="); ok {
					profile = d
				}
			}
			dieWithTest(cmd) // ModifyCmdFunc replaces chromedp's own setup, which does this
		}),
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(actx)
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 800)); err != nil {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(func() {
		// A graceful close (Browser.close) lets chromium end and reap its
		// own children (zygote, renderers); killed, they would be left to
		// init as zombies.
		cctx, ccancel := context.WithTimeout(tab, 10*time.Second)
		if err := chromedp.Cancel(cctx); err != nil {
			t.Logf("close chromium: %v", err)
		}
		ccancel()
		cancelTab()
		cancelAlloc() // waits for the browser to exit and removes its profile
		cancelTimeout()
		if profile == "" {
			t.Error("chromium was started with no --user-data-dir")
			return
		}
		want := []byte("--user-data-dir=" + profile)
		for range 200 {
			left := testmur.Procs(func(_ []string, cmdline []byte) bool { return bytes.Contains(cmdline, want) })
			if len(left) == 0 {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Errorf("chromium processes left behind: %v", testmur.Procs(func(_ []string, c []byte) bool { return bytes.Contains(c, want) }))
	})
	return tab
}

// screenshot saves the tab's 1280×800 viewport as a PNG under the test's
// artifact directory (go test -artifacts keeps it) and returns its path.
func screenshot(t testing.TB, tab context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := t.ArtifactDir() + "/" + name
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// pollBound bounds one wait for the page: past it the wait has failed (a
// bound, not a timing assertion: everything it waits for takes well under a
// second on an idle machine).
const pollBound = 60 * time.Second

// poll waits until the page's JavaScript expression is truthy, failing the
// test with what, and the page's text, if pollBound passes first.
func poll(t *testing.T, tab context.Context, expr, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, pollBound)
	defer cancel()
	ok, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0)))
	if err != nil || !ok {
		body, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		t.Fatalf("waiting for %s: %v\npage:\n%s", what, err, body)
	}
}
