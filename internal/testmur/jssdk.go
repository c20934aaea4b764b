package testmur

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// JSSDK is the @a2a-js/sdk release the JavaScript client tests pin.
const JSSDK = "@a2a-js/sdk@1.3.0"

// JSE2EEnv turns a missing node, npm or registry into a failure, not a skip.
const JSE2EEnv = "MURMUR_JS_E2E"

// JSClient installs JSSDK (from npm) into a cache directory kept between
// runs, once per release, copies files (name → contents) into it and
// returns the directory a client script runs from. Without node, npm or the
// registry the test skips, or fails under MURMUR_JS_E2E=1.
func JSClient(t *testing.T, files map[string][]byte) string {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		if os.Getenv(JSE2EEnv) == "1" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format+" (set "+JSE2EEnv+"=1 to fail instead)", args...)
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			unavailable("%s is not on PATH", tool)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	root := filepath.Join(cache, "mur-jsclient")
	dir := filepath.Join(root, strings.NewReplacer("@", "", "/", "-").Replace(JSSDK))
	if err := os.MkdirAll(root, 0o755); err != nil {
		unavailable("cache %s: %v", root, err)
	}
	lock, err := os.OpenFile(filepath.Join(root, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		unavailable("lock the cache: %v", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		unavailable("lock the cache: %v", err)
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk", "package.json")); err != nil {
		tmp := dir + ".partial"
		_ = os.RemoveAll(tmp)
		cmd := exec.Command("npm", "install", "--prefix", tmp, "--no-save", "--no-audit", "--no-fund", JSSDK)
		if out, err := Combined(cmd); err != nil {
			_ = os.RemoveAll(tmp)
			unavailable("npm install %s: %v\n%s", JSSDK, err, out)
		}
		_ = os.RemoveAll(dir)
		if err := os.Rename(tmp, dir); err != nil {
			unavailable("install %s: %v", JSSDK, err)
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
