package session

import (
	"os"
	"path"
	"sort"
	"strings"

	"github.com/murmur-go/mur/runtime/manifest"
)

// credentialShaped are the names SES-10 strips from every subprocess
// environment: the manifest's credential backstop (PROC-3).
var credentialShaped = manifest.CredentialBackstop

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// subprocessEnv builds SES-10's environment for shell and native-tool
// subprocesses: the process environment plus .env's names, minus strip_env
// and credential-shaped names (baseline_env names stay), plus HOME, TMPDIR,
// MURMUR_SESSION_ID and MURMUR_CAPSULE_URL.
func subprocessEnv(base []string, dotenv map[string]string, strip, baseline []string, set map[string]string) []string {
	vars := map[string]string{}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	for k, v := range dotenv {
		if vars[k] == "" {
			vars[k] = v
		}
	}
	for k := range vars {
		if matchAny(baseline, k) {
			continue
		}
		if matchAny(strip, k) || matchAny(credentialShaped, k) {
			delete(vars, k)
		}
	}
	for k, v := range set {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// processEnv is os.Environ, a variable so tests can see what it reads.
var processEnv = os.Environ
