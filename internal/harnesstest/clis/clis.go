// Package clis installs the real harness CLIs for mur's end-to-end tests
// (process.md PTEST-5): Claude Code and Codex CLI at the versions this
// build's dialects were tested against, from the npm registry, into a
// cache directory kept between runs. Without npm, node or the registry a
// test skips with the reason — unless MURMUR_HARNESS_E2E=1 (CI), which
// makes that a failure. It also writes the scratch HOME each CLI runs
// under (PTEST-7).
package clis

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The pinned versions (PROC-10's tested versions).
const (
	ClaudeVersion = "2.1.328"
	CodexVersion  = "0.169.0"
)

// E2EEnv makes a missing CLI a failure rather than a skip (PTEST-5).
const E2EEnv = "MURMUR_HARNESS_E2E"

// CacheEnv overrides the cache directory.
const CacheEnv = "MUR_HARNESS_CACHE"

// Required reports whether the CLIs must be there (MURMUR_HARNESS_E2E=1).
func Required() bool { return os.Getenv(E2EEnv) == "1" }

// Claude returns the path of Claude Code's `claude`, installing it first.
func Claude(t testing.TB) string {
	return install(t, "@anthropic-ai/claude-code", ClaudeVersion, "claude")
}

// Codex returns the path of Codex CLI's `codex`, installing it first.
func Codex(t testing.TB) string {
	return install(t, "@openai/codex", CodexVersion, "codex")
}

// unavailable skips t, or fails it under MURMUR_HARNESS_E2E=1.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s (%s=1: the real CLIs are required)", msg, E2EEnv)
	}
	t.Skipf("%s; set %s=1 to make this a failure", msg, E2EEnv)
}

// Cache is the directory the CLIs are installed under: $MUR_HARNESS_CACHE,
// else the user cache directory's mur-harness.
func Cache() string {
	if d := os.Getenv(CacheEnv); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "mur-harness")
	}
	return filepath.Join(os.TempDir(), "mur-harness")
}

// install runs `npm install --prefix <cache>/<name>-<version> --no-save
// --no-audit --no-fund <pkg>@<version>` once per version (PTEST-5), under a
// lock so that test packages running at once install it once.
func install(t testing.TB, pkg, version, bin string) string {
	t.Helper()
	name := strings.TrimPrefix(pkg[strings.LastIndexByte(pkg, '/')+1:], "@")
	dir := filepath.Join(Cache(), name+"-"+version)
	path := filepath.Join(dir, "node_modules", ".bin", bin)
	if ok(path, version) {
		return path
	}
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			unavailable(t, "%s is not on PATH, so %s@%s cannot be installed", tool, pkg, version)
		}
	}
	if err := os.MkdirAll(Cache(), 0o755); err != nil {
		unavailable(t, "cache %s: %v", Cache(), err)
	}
	lock, err := os.OpenFile(filepath.Join(Cache(), ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		unavailable(t, "lock the cache: %v", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		unavailable(t, "lock the cache: %v", err)
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	if ok(path, version) {
		return path
	}
	tmp := dir + ".partial"
	_ = os.RemoveAll(tmp)
	cmd := exec.Command("npm", "install", "--prefix", tmp, "--no-save", "--no-audit", "--no-fund", pkg+"@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.RemoveAll(tmp)
		unavailable(t, "npm install %s@%s: %v\n%s", pkg, version, err, out)
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		unavailable(t, "install %s@%s: %v", pkg, version, err)
	}
	if !ok(path, version) {
		unavailable(t, "%s@%s installed, but %s does not answer --version with %s", pkg, version, path, version)
	}
	return path
}

// ok reports whether path runs and prints version.
func ok(path, version string) bool {
	out, err := exec.Command(path, "--version").Output()
	return err == nil && strings.Contains(string(out), version)
}

// ClaudeHome writes a scratch HOME for Claude Code that signs it in as on a
// subscription (PTEST-7): .claude/.credentials.json (0600) holding an OAuth
// token, which the fake Anthropic server then requires as its bearer.
func ClaudeHome(t testing.TB, dir, token string) {
	t.Helper()
	cred := fmt.Sprintf(`{"claudeAiOauth":{"accessToken":%q,"refreshToken":"sk-ant-ort01-fake","expiresAt":4102444800000,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}`, token)
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", ".credentials.json"), []byte(cred), 0o600); err != nil {
		t.Fatal(err)
	}
}

// CodexWrapper writes an executable named codex in dir that execs the
// installed codex with the fake's model provider before its own arguments
// (PTEST-7; codex reads no OPENAI_BASE_URL), and returns its path.
func CodexWrapper(t testing.TB, dir, codex, baseURL string) string {
	t.Helper()
	script := fmt.Sprintf("#!/bin/sh\nexec %s -c model_provider=fake -c 'model_providers.fake.name=\"fake\"' -c 'model_providers.fake.base_url=\"%s\"' -c 'model_providers.fake.wire_api=\"responses\"' \"$@\"\n",
		shellQuote(codex), baseURL)
	path := filepath.Join(dir, "codex")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
