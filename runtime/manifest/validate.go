package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/diag"
)

// step3 is MAN-4 step (3): required fields (E-MAN-001, E-RUN-005).
func (l *loader) step3() *diag.Diagnostic {
	if len(l.miss) > 0 {
		return l.miss[0]
	}
	return nil
}

// step4 is MAN-4 step (4): types, enums, ranges (recorded while decoding),
// then the cross-field rules of §1.3–§1.5.
func (l *loader) step4() *diag.Diagnostic {
	if len(l.faults) > 0 {
		return l.faults[0]
	}
	m := l.m
	if dc := m.Lifecycle.DoneCheck; dc != nil && strings.TrimSpace(dc.Command) != "" {
		first := strings.Fields(dc.Command)[0]
		if m.Capabilities.Shell == nil || !contains(m.Capabilities.Shell.Allow, first) {
			return diag.ManInvalid(l.at("lifecycle.done_check.command"), "lifecycle.done_check.command", fmt.Sprintf("'%s' is not in capabilities.shell.allow", first))
		}
	}
	seen := map[string]bool{}
	for i, a := range m.Artifacts {
		if seen[a.Name] {
			// one lock entry and one tools/<name>/ per tool name (STORE-5, STORE-8)
			return diag.ManInvalid(l.at(fmt.Sprintf("artifacts[%d].name", i)), fmt.Sprintf("artifacts[%d].name", i), fmt.Sprintf("'%s' declares the tool name '%s' a second time", a.Ref, a.Name))
		}
		seen[a.Name] = true
		if a.Builtin() && m.Lifecycle.TaskAcceptance == "none" {
			return RequestInputUnserved(l.file, i) // input.md INP-2
		}
	}
	if l.process { // PROC-2
		if m.Control.SwitchDriver() {
			return diag.ManInvalid(l.at("control.agent_settings"), "control.agent_settings", faultNoDriver)
		}
		if m.Capabilities.Install != nil {
			return diag.ManInvalid(l.at("capabilities.install"), "capabilities.install", faultNoInstall)
		}
	}
	return nil
}

// step5 is MAN-4 step (5): capabilities.
func (l *loader) step5() *diag.Diagnostic {
	m := l.m
	var err *diag.Diagnostic
	if m.Capabilities.Network.Allow, err = parseAllow(l.netAllow); err != nil {
		return err
	}
	if l.peerFetchAllow != nil {
		if m.Capabilities.PeerFetch.Allow, err = parseAllow(l.peerFetchAllow); err != nil {
			return err
		}
	}
	if s := m.Capabilities.Filesystem.Scope; s != "" {
		switch {
		case isAbs(s):
			return diag.CapScopeRelative(s)
		case escapes(s):
			return diag.CapScopeEscape(s)
		}
	}
	for _, p := range m.Capabilities.Filesystem.ReadOnly {
		switch {
		case isAbs(p):
			return diag.CapReadOnlyRelative(p)
		case escapes(p):
			return diag.CapReadOnlyEscape(p)
		}
	}
	if d := m.CheckExports(m.Dir); d != nil {
		return d
	}
	if d := m.CheckPeerFilesTTL(m.Lifecycle.AfterTask); d != nil {
		return d
	}
	if in := m.Inference; in != nil {
		for _, b := range in.Choices() {
			if (b.Kind == KindOpenAI || b.Kind == KindAnthropic) && b.APIKeyEnv == "" && !b.Keyless {
				return diag.CapNoCredential(b.Where, b.Kind)
			}
		}
	}
	return l.envChecks()
}

// envChecks is step 5's E-CAP-016 (both transports), then E-CAP-019 (a
// harness's required variables), process.md PROC-3.
func (l *loader) envChecks() *diag.Diagnostic {
	m := l.m
	var allow []string
	if e := m.Capabilities.Env; e != nil {
		allow = e.Allow
	}
	var strip []string
	if sh := m.Capabilities.Shell; sh != nil {
		strip = sh.StripEnv
	}
	var matches []diag.EnvMatch
	seen := map[string]bool{}
	for _, name := range allow {
		if seen[name] {
			continue
		}
		seen[name] = true
		if p, ok := matchGlob(CredentialBackstop, name); ok {
			matches = append(matches, diag.EnvMatch{Name: name, Source: "credential backstop", Pattern: p})
		} else if p, ok := matchGlob(strip, name); ok {
			matches = append(matches, diag.EnvMatch{Name: name, Source: "capabilities.shell.strip_env", Pattern: p})
		}
	}
	if len(matches) > 0 {
		return diag.CapEnvStripped(matches)
	}
	if !m.Inference.Process() {
		return nil
	}
	var missing []string
	for _, v := range HarnessRequiredEnv {
		if !contains(allow, v) {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		return diag.CapHarnessEnv(m.Inference.HarnessName(), missing)
	}
	return nil
}

// CredentialBackstop are the names no environment the runtime builds
// carries (capsule.md SES-10's credential-shaped names, with
// MURMUR_FORMATION_*, MURMUR_SPAWNER* and the bridge's token):
// shell and native-tool subprocesses lose them, and env.allow may not
// name them (process.md PROC-3, E-CAP-016).
var CredentialBackstop = []string{"*_API_KEY", "*_TOKEN", "*_SECRET", "*PASSWORD*", "AWS_*", "MURMUR_FORMATION_*", "MURMUR_SPAWNER*", "MURMUR_TOOL_SERVER_TOKEN"}

// matchGlob returns the first of globs that name matches (path.Match).
func matchGlob(globs []string, name string) (string, bool) {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return g, true
		}
	}
	return "", false
}

func parseAllow(raw []string) (AllowList, *diag.Diagnostic) {
	var out AllowList
	for _, s := range raw {
		e, err := ParseAllowEntry(s)
		if err != nil {
			return nil, diag.CapNetworkEntry(s, err.Error())
		}
		out = append(out, e)
	}
	return out, nil
}

func isAbs(p string) bool { return filepath.IsAbs(p) || strings.HasPrefix(p, "/") }

func escapes(p string) bool {
	c := filepath.ToSlash(filepath.Clean(p))
	return c == ".." || strings.HasPrefix(c, "../")
}

// CheckPeerFilesTTL is E-CAP-008 for afterTask, lifecycle.after_task as
// loaded or as --lifecycle-after-task overrides it: a sleeping capsule's
// handles outlive its tasks, so exports.peer_files.max_ttl must be declared
// and at most 15m (tools.md PFILE-3).
func (m *Manifest) CheckPeerFilesTTL(afterTask string) *diag.Diagnostic {
	pf := m.Exports.PeerFiles
	if pf == nil || afterTask != "sleep" {
		return nil
	}
	switch {
	case !pf.TTLDeclared:
		return diag.CapPeerFilesTTL("not declared")
	case pf.MaxTTL > MaxSleepPeerFilesTTL:
		return diag.CapPeerFilesTTL(fmt.Sprintf("declared %ds", int64(pf.MaxTTL.Seconds())))
	}
	return nil
}

// CheckExports checks exports.files.root and exports.peer_files.root against
// workdir, the accessible workdir (capsule.md SES-2), returning E-CAP-007 for
// a root resolving outside it. Load runs it with the manifest's directory;
// `mur run --workdir` runs it again with its own.
func (m *Manifest) CheckExports(workdir string) *diag.Diagnostic {
	check := func(block, root string) *diag.Diagnostic {
		resolved := root
		if !filepath.IsAbs(root) {
			resolved = filepath.Join(workdir, root)
		}
		resolved = filepath.Clean(resolved)
		if !inside(workdir, resolved) {
			return diag.CapExportRoot(block, root, resolved, workdir)
		}
		// A root that exists as (or through) a symbolic link pointing out
		// of the workdir resolves outside it too.
		if real, err := filepath.EvalSymlinks(resolved); err == nil {
			realWD, werr := filepath.EvalSymlinks(workdir)
			if werr != nil {
				realWD = workdir
			}
			if !inside(realWD, real) {
				return diag.CapExportRoot(block, root, real, workdir)
			}
		}
		return nil
	}
	if f := m.Exports.Files; f != nil && f.Root != "" {
		if d := check("files", f.Root); d != nil {
			return d
		}
	}
	if pf := m.Exports.PeerFiles; pf != nil && pf.Root != "" {
		return check("peer_files", pf.Root)
	}
	return nil
}

// inside reports whether path is dir or below it (both clean).
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// step6 is MAN-4 step (6): reserved names (MAN-9, tools.md STAGE-6).
func (l *loader) step6() *diag.Diagnostic {
	for _, a := range l.m.Artifacts {
		if IsReserved(a.Name) {
			return diag.CapReservedName(a.Ref, ReservedToolNames)
		}
	}
	return nil
}

// step7 is MAN-4 step (7): credential references (DRV-3). It also adds the
// static staging warnings (STAGE-7, W-RUN-003).
func (l *loader) step7(getenv func(string) string) *diag.Diagnostic {
	m := l.m
	if sh := m.Capabilities.Shell; sh != nil {
		for _, b := range sh.Allow {
			if IsReserved(b) {
				l.warns = append(l.warns, diag.SecShellShadowed(b))
			}
		}
	}
	in := m.Inference
	if in == nil {
		return nil
	}
	if name := in.Driver.APIKeyEnv; name != "" && getenv(name) == "" {
		return diag.ManCredentialUnset(l.at("inference.driver.api_key"), "inference.driver.api_key", name)
	}
	for i := range in.Alternates {
		a := &in.Alternates[i]
		a.Available = a.APIKeyEnv == "" || getenv(a.APIKeyEnv) != ""
		if !a.Available {
			l.warns = append(l.warns, diag.RunChoiceUnavailable(a.Name, a.Kind, a.Model, a.APIKeyEnv))
		}
	}
	return nil
}

// artifactIdentity is LoadArtifact's name and version check: E-BLD-001,
// E-REG-004 (capsule.md CLI-6). A missing key is left to step 3.
func (l *loader) artifactIdentity() *diag.Diagnostic {
	m := l.m
	if l.present("name") {
		if p := NameProblem(m.Name); p != "" {
			return diag.BldName(m.Name, p)
		}
	}
	if IsReservedVersion(m.Version) {
		return diag.RegReservedVersion(m.Version)
	}
	return nil
}

// artifactKind checks what each artifact kind must hold (STORE-1).
func (l *loader) artifactKind(dir string) *diag.Diagnostic {
	m := l.m
	if m.Implementation == "wasm" {
		return diag.ManInvalid(l.at("implementation"), "implementation", "'wasm' artifacts are not supported by this build; a tool is a native executable")
	}
	if strings.EqualFold(m.Execution, "wasm") {
		return diag.ManInvalid(l.at("execution"), "execution", "'wasm' artifacts are not supported by this build; a tool is a native executable")
	}
	if m.Kind() != "hook" {
		for _, k := range []string{"binding", "execution_mode", "commit_policy"} {
			if l.present(k) {
				return diag.ManInvalid(l.file, k, "is read only on a runtime: hook artifact")
			}
		}
		m.Hook = nil
	}
	switch m.Kind() {
	case "driver":
		return diag.ManInvalid(l.at("runtime"), "runtime", fmt.Sprintf("'%s' artifacts are not supported by this build; install a capsule, tool, skill or hook", m.Runtime))
	case "hook":
		return l.hookKind(dir)
	case "tool":
		if m.Implementation != "" && m.Implementation != "native" {
			return diag.ManNotOneOf(l.at("implementation"), "implementation", m.Implementation, "native")
		}
		return l.commandInside(dir)
	case "skill":
		return statFile(filepath.Join(dir, SkillFile))
	}
	return nil
}

// commandInside checks a tool's or hook's command: present, a path inside
// dir, a regular file.
func (l *loader) commandInside(dir string) *diag.Diagnostic {
	m := l.m
	if m.Command == "" {
		return diag.ManMissingKey(l.file, "command")
	}
	if isAbs(m.Command) || escapes(m.Command) {
		return diag.ManInvalid(l.at("command"), "command", fmt.Sprintf("'%s' must be a path inside the artifact directory", m.Command))
	}
	return statFile(filepath.Join(dir, m.Command))
}

// SkillFile is a skill artifact's body, returned as the call's result (STORE-1).
const SkillFile = "skill.md"

func statFile(path string) *diag.Diagnostic {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return diag.IONotFound(path).WithErr(err)
	case err != nil:
		return diag.IOError(path, osErrText(err)).WithErr(err)
	case !fi.Mode().IsRegular():
		return diag.IOError(path, "not a regular file")
	}
	return nil
}

// Kind is the artifact role: Runtime, or "capsule" when absent.
func (m *Manifest) Kind() string {
	if m.Runtime == "" {
		return "capsule"
	}
	return m.Runtime
}

// MurVersionWarning is W-SEC-019 when mur_version pins a version other than
// running, else nil (capsule.md §1.2; the run continues).
func (m *Manifest) MurVersionWarning(running string) *diag.Diagnostic {
	if m.MurVersion == "" || m.MurVersion == running {
		return nil
	}
	return diag.SecVersionPin(m.MurVersion, running)
}

// GraceWarning is W-SEC-022 when shell_grace_secs is set without
// task_acceptance: queue and after_task: sleep, else nil (MAN-10). Call it
// after the --lifecycle-* overrides are applied.
func (lc Lifecycle) GraceWarning() *diag.Diagnostic {
	if lc.ShellGraceSecs == nil || lc.TaskAcceptance == "queue" && lc.AfterTask == "sleep" {
		return nil
	}
	return diag.SecGraceLifecycle()
}
