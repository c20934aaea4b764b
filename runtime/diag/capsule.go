package diag

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Codes of the capsule, store, trace and CLI diagnostics (spec README.md).
const (
	EIO001      Code = "E-IO-001"
	EMAN001     Code = "E-MAN-001"
	EMAN002     Code = "E-MAN-002"
	EMAN003     Code = "E-MAN-003"
	EMAN004     Code = "E-MAN-004" // ours: a manifest over the size bound
	ECAP001     Code = "E-CAP-001"
	ECAP002     Code = "E-CAP-002"
	ECAP003     Code = "E-CAP-003" // murmur's: the kernel cannot give the containment asked for
	ECAP007     Code = "E-CAP-007"
	ECAP008     Code = "E-CAP-008"
	ECAP010     Code = "E-CAP-010"
	ECAP012     Code = "E-CAP-012"
	ECAP013     Code = "E-CAP-013"
	ECAP018     Code = "E-CAP-018"
	ERUN003     Code = "E-RUN-003"
	ERUN005     Code = "E-RUN-005"
	ERUN007     Code = "E-RUN-007"
	ERUN008     Code = "E-RUN-008"
	ERUN009     Code = "E-RUN-009"
	ERUN010     Code = "E-RUN-010"
	ERUN022     Code = "E-RUN-022"
	ERUN024     Code = "E-RUN-024"
	ERUN027     Code = "E-RUN-027"
	ERUN028     Code = "E-RUN-028"
	ERUN039     Code = "E-RUN-039"
	ERUN040     Code = "E-RUN-040"
	EREG001     Code = "E-REG-001"
	EREG002     Code = "E-REG-002"
	EREG004     Code = "E-REG-004"
	EREG005     Code = "E-REG-005"
	EREG006     Code = "E-REG-006"
	EWITLEVEL01 Code = "E-WIT-LEVEL-001"
	EBLD001     Code = "E-BLD-001"
	EBLD002     Code = "E-BLD-002"
	ENEW002     Code = "E-NEW-002"
	ENEW003     Code = "E-NEW-003"
	ETRC001     Code = "E-TRC-001"
	ETRC002     Code = "E-TRC-002"
	WSEC019     Code = "W-SEC-019"
	WSEC022     Code = "W-SEC-022"
	WSEC023     Code = "W-SEC-023"
	WSEC032     Code = "W-SEC-032"
	WSEC033     Code = "W-SEC-033" // ours: a token on the command line
	WRUN001     Code = "W-RUN-001"
	WRUN003     Code = "W-RUN-003"
)

const (
	hintIO          = "check the path"
	hintArtifactNm  = "use [a-z0-9-], 1–100 characters, no leading or trailing -"
	hintInsidePath  = "name a path inside the workdir"
	hintRunInstall  = "run mur install"
	hintReinstall   = "reinstall it with mur install"
	hintSessionAddr = "mur ps lists the running sessions"
	hintTraceAddr   = "name a session by id, suffix, @N or path"
	hintCorrectKey  = "correct or remove it"
	hintDriverBlock = "add inference.driver with a kind"
)

// IONotFound is E-IO-001 for a path that does not exist.
func IONotFound(path string) *Diagnostic {
	return mk(EIO001, path+": no such file or directory", hintIO)
}

// IONoManifest is E-IO-001 for the murmur.yaml mur run looked for and did
// not find; the hint says what to run instead. rosterDir is the directory
// holding a roster.yaml in its place ("" when there is none), as the user
// named it.
func IONoManifest(path, rosterDir string) *Diagnostic {
	if rosterDir != "" {
		return mk(EIO001, path+": no such file or directory",
			fmt.Sprintf("%s holds a formation (roster.yaml): run mur run --roster %s", rosterDir, ShellWord(rosterDir)))
	}
	return mk(EIO001, path+": no such file or directory",
		"run mur new <name> to scaffold a capsule, or name one with --capsule <dir> (a formation: --roster <dir>)")
}

// IOError is E-IO-001 for a path that could not be read; osErr is the OS's text.
func IOError(path, osErr string) *Diagnostic { return mk(EIO001, path+": "+osErr, hintIO) }

// ManMissingKey is E-MAN-001.
func ManMissingKey(file, dottedKey string) *Diagnostic {
	return mk(EMAN001, fmt.Sprintf("%s: missing required key '%s'", file, dottedKey),
		fmt.Sprintf("add %s to %s", dottedKey, file))
}

// ManMissingKeyNear is E-MAN-001 for a required key missing from a mapping
// that holds an unknown key close to it, at file:line:col (at): the
// misspelling the author meant.
func ManMissingKeyNear(file, dottedKey, at, held string) *Diagnostic {
	key := dottedKey[strings.LastIndexByte(dottedKey, '.')+1:]
	return mk(EMAN001, fmt.Sprintf("%s: missing required key '%s'; it holds '%s' — did you mean '%s'?", at, dottedKey, held, key),
		fmt.Sprintf("rename %s to %s in %s", held, key, file))
}

// ManYAML is E-MAN-002 for a YAML syntax error at line:column.
func ManYAML(file string, line, column int, yamlErr string) *Diagnostic {
	return mk(EMAN002, fmt.Sprintf("%s:%d:%d: %s", file, line, column, yamlErr),
		fmt.Sprintf("fix the YAML at line %d", line))
}

// ManCredentialUnset is E-MAN-003 for a primary driver's api_key: ${NAME}
// whose variable is unset or empty (DRV-3). The hint says where the value
// can come from: the environment, or the project's .env (SES-10).
func ManCredentialUnset(file, dottedKey, name string) *Diagnostic {
	return mk(EMAN003, fmt.Sprintf("%s: %s: the environment variable %s is not set", file, dottedKey, name),
		fmt.Sprintf("export %s=<your key> before running mur, or add the line %s=<your key> to .env in the project directory (beside murmur.yaml, or a formation's roster.yaml)", name, name))
}

// ManTooLarge is E-MAN-004: `<file>: the file is over <max> bytes
// (1 MiB), the most a manifest may hold; it was not parsed` — MAN-4 step (1),
// refused before any YAML is read.
func ManTooLarge(file string, max int) *Diagnostic {
	return mk(EMAN004, fmt.Sprintf("%s: the file is over %d bytes (%s), the most a manifest may hold; it was not parsed", file, max, mib(max)),
		"keep the manifest under "+mib(max))
}

// mib names a whole number of MiB ("1 MiB").
func mib(n int) string { return fmt.Sprintf("%d MiB", n>>20) }

// ManInvalid is E-MAN-003: `<file>: <dotted key>: <fault>`.
func ManInvalid(file, dottedKey, fault string) *Diagnostic {
	return mk(EMAN003, fmt.Sprintf("%s: %s: %s", file, dottedKey, fault), "correct "+dottedKey)
}

// ManNoInputBudget is E-MAN-003 for a choice whose window leaves no input
// once the output cap is set aside (DRV-10): windowKey is the key that set
// the window (context.max_tokens or the block's config.context_window_tokens).
func ManNoInputBudget(file, windowKey string, window, outputCap int64) *Diagnostic {
	return ManInvalid(file, windowKey, fmt.Sprintf("leaves no input budget: the window %d less the output cap %d (inference.max_tokens) is %d; declare a window larger than the output cap, or a smaller inference.max_tokens", window, outputCap, window-outputCap))
}

// ManFileOutside is E-MAN-003 for a file an installed capsule's manifest
// names outside its own directory: resolved is where value
// leads, symlinks evaluated; dir the capsule's directory.
func ManFileOutside(file, dottedKey, value, resolved, dir string) *Diagnostic {
	return ManInvalid(file, dottedKey, fmt.Sprintf("'%s' resolves to '%s', outside the installed capsule's directory '%s'; an installed capsule reads only its own files", value, resolved, dir))
}

// ManNotOneOf is the E-MAN-003 fault `'<value>' is not one of <a>, <b>`.
func ManNotOneOf(file, dottedKey, value string, allowed ...string) *Diagnostic {
	return ManInvalid(file, dottedKey, fmt.Sprintf("'%s' is not one of %s", value, strings.Join(allowed, ", ")))
}

// ManRemovedKey is E-MAN-003 for inference.model, .endpoint or .api_key.
func ManRemovedKey(file, key string) *Diagnostic {
	return mk(EMAN003, fmt.Sprintf("%s: inference.%s was removed; set inference.driver.%s instead", file, key, key),
		"correct inference."+key)
}

// ManScript is E-MAN-003 for an invalid scripted-driver script.
func ManScript(scriptPath, keyPath, fault string) *Diagnostic {
	return mk(EMAN003, fmt.Sprintf("%s: %s: %s", scriptPath, keyPath, fault), "correct "+keyPath)
}

// ManOverride is E-MAN-003 for a bad `mur run` override flag value.
func ManOverride(flag, fault string) *Diagnostic {
	return mk(EMAN003, fmt.Sprintf("--%s: %s", flag, fault), "correct --"+flag)
}

// ManOverrideNotOneOf is ManOverride with the fault `'<value>' is not one of <a>, <b>`.
func ManOverrideNotOneOf(flag, value string, allowed ...string) *Diagnostic {
	return ManOverride(flag, fmt.Sprintf("'%s' is not one of %s", value, strings.Join(allowed, ", ")))
}

// CapNetworkEntry is E-CAP-001.
func CapNetworkEntry(entry, reason string) *Diagnostic {
	return mk(ECAP001, fmt.Sprintf("invalid network allow entry '%s': %s", entry, reason),
		"write host, host:port or http(s)://host[:port]")
}

// CapScopeRelative is E-CAP-002 for an absolute filesystem scope.
func CapScopeRelative(scope string) *Diagnostic {
	return mk(ECAP002, fmt.Sprintf("invalid filesystem scope '%s': scope must be relative to the workdir", scope), hintInsidePath)
}

// CapScopeEscape is E-CAP-002 for a scope escaping via "..".
func CapScopeEscape(scope string) *Diagnostic {
	return mk(ECAP002, fmt.Sprintf("invalid filesystem scope '%s': scope cannot escape the workdir via '..'", scope), hintInsidePath)
}

// CapContainment is E-CAP-003: capabilities.containment asks for scoped on
// a kernel (or a platform) without Landlock; why says what the probe found.
func CapContainment(file, why string) *Diagnostic {
	return mk(ECAP003, fmt.Sprintf("%s: capabilities.containment: scoped needs Landlock, which this kernel does not offer: %s", file, why),
		"run on Linux 5.13 or newer with Landlock enabled, or declare capabilities.containment: advisory")
}

// CapSealed is E-CAP-003 for sealed: where asked for it (the manifest's
// capabilities.containment, or --containment) and the machine cannot build
// a sealed tool process; why names the step it refused.
func CapSealed(where, why string) *Diagnostic {
	return mk(ECAP003, fmt.Sprintf("%s: containment sealed cannot be met on this machine: %s", where, why),
		"run where mur may make user, mount, PID and network namespaces (as root, or with unprivileged user namespaces enabled), or ask for containment scoped")
}

// CapExportRoot is E-CAP-007; block is "files" or "peer_files".
func CapExportRoot(block, root, resolved, workdir string) *Diagnostic {
	return mk(ECAP007, fmt.Sprintf("exports.%s.root '%s' resolves to '%s', which is outside the capsule workdir '%s'", block, root, resolved, workdir),
		"point the export root at a directory inside the workdir")
}

// CapPeerFilesTTL is E-CAP-008; declared is "declared <n>s" or "not declared".
func CapPeerFilesTTL(declared string) *Diagnostic {
	return mk(ECAP008, fmt.Sprintf("exports.peer_files with lifecycle.after_task: sleep requires exports.peer_files.max_ttl to be declared and at most 900s (%s)", declared),
		"declare exports.peer_files.max_ttl: 15m or shorter")
}

const hintConfig = "make config a mapping under 65536 bytes of JSON"

// CapConfigNotMapping is E-CAP-010 for a config that is not a mapping.
func CapConfigNotMapping(name string) *Diagnostic {
	return mk(ECAP010, fmt.Sprintf("invalid config for artifact '%s': 'config:' must be a mapping of keys to values", name), hintConfig)
}

// CapConfigTooLarge is E-CAP-010 for a config over 65536 bytes of JSON.
func CapConfigTooLarge(name string, n int) *Diagnostic {
	return mk(ECAP010, fmt.Sprintf("invalid config for artifact '%s': 'config:' serializes to %d bytes of JSON, over the 65536-byte limit", name, n), hintConfig)
}

// CapReadOnlyRelative is E-CAP-012 for an absolute read-only path.
func CapReadOnlyRelative(path string) *Diagnostic {
	return mk(ECAP012, fmt.Sprintf("invalid read-only path '%s': read-only path must be relative to the workdir", path), hintInsidePath)
}

// CapReadOnlyEscape is E-CAP-012 for a read-only path escaping via "..".
func CapReadOnlyEscape(path string) *Diagnostic {
	return mk(ECAP012, fmt.Sprintf("invalid read-only path '%s': read-only path cannot escape the workdir via '..'", path), hintInsidePath)
}

// CapReservedName is E-CAP-013 (tools.md STAGE-6); reserved is the eleven
// names in STAGE-5 order.
func CapReservedName(fullName string, reserved []string) *Diagnostic {
	return mk(ECAP013, fmt.Sprintf("artifact '%s' collides with a tool the runtime provides itself; the reserved names are %s", fullName, strings.Join(reserved, ", ")),
		"rename the artifact, or drop it if the runtime-provided tool is what you wanted")
}

// CapNoCredential is E-CAP-018; where is "inference.driver" or "inference.alternates[<i>]".
func CapNoCredential(where, kind string) *Diagnostic {
	return mk(ECAP018, fmt.Sprintf("%s (kind %s) binds no credential", where, kind),
		"set api_key: ${NAME}, or keyless: true if the endpoint takes no key")
}

// RunLockVersion is E-RUN-003 for an unsupported lock_version.
func RunLockVersion(v string) *Diagnostic {
	return mk(ERUN003, fmt.Sprintf("murmur.lock: lock_version %s is not supported; this mur reads 2", v),
		"move murmur.lock aside, then run mur install: it writes a lock this mur reads")
}

// RunLockNoEntry is E-RUN-003 for a manifest artifact the lock lacks.
func RunLockNoEntry(name, version string) *Diagnostic {
	return mk(ERUN003, fmt.Sprintf("murmur.lock has no entry for %s@%s", name, version), hintRunInstall)
}

// RunNoInference is E-RUN-005 for a manifest with no inference block.
func RunNoInference(file string) *Diagnostic {
	return mk(ERUN005, file+" declares no inference block; script capsules are not supported by this build", hintDriverBlock)
}

// RunNoDriver is E-RUN-005 for a missing inference.driver.
func RunNoDriver(file string) *Diagnostic {
	return mk(ERUN005, file+": inference.driver is missing", hintDriverBlock)
}

// RunNoDriverKind is E-RUN-005 for a missing inference.driver.kind.
func RunNoDriverKind(file string) *Diagnostic {
	return mk(ERUN005, file+": inference.driver.kind is missing", hintDriverBlock)
}

// RunTraceWrite is E-RUN-007 (no hint).
func RunTraceWrite(path, osErr string) *Diagnostic {
	return mk(ERUN007, fmt.Sprintf("the trace could not be written: %s: %s; the session ends", path, osErr), "")
}

// RunMissingArtifacts is E-RUN-008 (capsule.md STORE-6); each entry is name@version.
func RunMissingArtifacts(missing []string) *Diagnostic {
	return mk(ERUN008, "missing artifacts: "+strings.Join(missing, ", "),
		"run `mur install` to install all manifest dependencies")
}

// RunUnreadable is E-RUN-009 for a system_prompt_file or driver script.
func RunUnreadable(path, osErr string) *Diagnostic {
	return mk(ERUN009, fmt.Sprintf("%s could not be read: %s", path, osErr), hintIO)
}

// RunBind is E-RUN-010.
func RunBind(addr string, port int, osErr string) *Diagnostic {
	return mk(ERUN010, fmt.Sprintf("the door could not bind %s:%d: %s", addr, port, osErr),
		"free the port, or change network.internal_port or --port")
}

// RunNoSuchPID is E-RUN-022 `<ses> is not running: no process holds pid <n>`.
func RunNoSuchPID(ses string, pid int) *Diagnostic {
	return mk(ERUN022, ses+" is not running: "+ReasonNoSuchPID(pid), hintSessionAddr)
}

// RunPIDReused is E-RUN-022 for a pid held by a process that started at another time.
func RunPIDReused(ses string, pid int) *Diagnostic {
	return mk(ERUN022, ses+" is not running: "+ReasonPIDReused(pid), hintSessionAddr)
}

// ReasonNoSuchPID is E-RUN-022's reason `no process holds pid <n>`, also the
// reason of `mur ps`'s `pruned: <ses> — <reason>` lines (capsule.md CLI-12).
func ReasonNoSuchPID(pid int) string { return fmt.Sprintf("no process holds pid %d", pid) }

// ReasonPIDReused is E-RUN-022's reason for a reused pid (also CLI-12's pruned lines).
func ReasonPIDReused(pid int) string {
	return fmt.Sprintf("pid %d is held by a process that started at another time", pid)
}

// RunNoneRunning is E-RUN-022 when no capsule runs here.
func RunNoneRunning() *Diagnostic {
	return mk(ERUN022, "no capsule is running on this machine", hintSessionAddr)
}

// RunNotSessionAddress is E-RUN-022 for an argument that is no session address.
func RunNotSessionAddress(arg string) *Diagnostic {
	return mk(ERUN022, fmt.Sprintf("'%s' is not a session address", arg), hintSessionAddr)
}

// RunNoSessionMatch is E-RUN-022 when nothing running matches.
func RunNoSessionMatch(arg string) *Diagnostic {
	return mk(ERUN022, fmt.Sprintf("no running session matches '%s'", arg), hintSessionAddr)
}

// RunAmbiguousSession is E-RUN-022 when several running sessions match.
func RunAmbiguousSession(arg string, sessions []string) *Diagnostic {
	return mk(ERUN022, fmt.Sprintf("'%s' matches %d running sessions: %s", arg, len(sessions), strings.Join(sessions, ", ")), hintSessionAddr)
}

const hintStillRunning = "the capsule is still running and its record is kept"

// RunSignalRefused is E-RUN-024; signal is "SIGTERM" or "SIGKILL".
func RunSignalRefused(ses, signal string, pid int, why string) *Diagnostic {
	return mk(ERUN024, fmt.Sprintf("%s could not be ended: %s to pid %d was refused: %s", ses, signal, pid, why), hintStillRunning)
}

// RunStartUnreadable is E-RUN-024 when the pid's start time cannot be read.
func RunStartUnreadable(ses string, pid int) *Diagnostic {
	return mk(ERUN024, fmt.Sprintf("%s could not be ended: pid %d's start time could not be read", ses, pid), hintStillRunning)
}

// RunSurvivedKill is E-RUN-024 for a pid alive 5 s after SIGKILL.
func RunSurvivedKill(ses string, pid int) *Diagnostic {
	return mk(ERUN024, fmt.Sprintf("%s could not be ended: pid %d was still running 5 seconds after SIGKILL", ses, pid), hintStillRunning)
}

// RunCredentialRejected is E-RUN-027.
func RunCredentialRejected(name string) *Diagnostic {
	return mk(ERUN027, fmt.Sprintf("the provider rejected the inference credential %s from the environment (HTTP 401); it is read once at launch", name),
		fmt.Sprintf("restart the capsule with a valid %s", name))
}

// RunRecordsUnreadable is E-RUN-028.
func RunRecordsUnreadable(path, osErr string) *Diagnostic {
	return mk(ERUN028, fmt.Sprintf("the running-capsule records could not be read: %s: %s", path, osErr),
		"check that $MURMUR_HOME/running is a directory this user owns")
}

// RunForgetSessionMessage is E-RUN-039's message, the -32602 text of door.md PEER-6 (never printed).
const RunForgetSessionMessage = "x-murmur-forget-session forgets a harness session, and only inference.transport: process keeps one; this capsule's transport is 'http'"

// RunTaskEnded is E-RUN-040: status is the session's exit status, reason the
// deciding task's SES-5 text without its leading "error: ", "stopped: " or "canceled: ".
// show is the mur trace show command that reads this session from the
// directory the user is in, records its records directory.
func RunTaskEnded(status, reason, show, records string) *Diagnostic {
	return mk(ERUN040, fmt.Sprintf("the task ended %s: %s", status, reason),
		fmt.Sprintf("`%s` shows the turn it ended on and why; the task's result text is in %s", show, filepath.Join(records, "out", "result.txt")))
}

// RegNotInGlobal is E-REG-001; each entry is name@version.
func RegNotInGlobal(missing []string) *Diagnostic {
	return mk(EREG001, "not in the global store: "+strings.Join(missing, ", "), "install it with mur install -g <dir>")
}

// RegHashMismatch is E-REG-002; store is "project" or "global", recordedIn
// "meta.json" or "murmur.lock".
func RegHashMismatch(name, version, store, actual, recordedIn, expected string) *Diagnostic {
	return mk(EREG002, fmt.Sprintf("%s@%s in the %s store hashes to sha256:%s, but %s records sha256:%s", name, version, store, actual, recordedIn, expected), hintReinstall)
}

// RegReservedVersion is E-REG-004.
func RegReservedVersion(v string) *Diagnostic {
	return mk(EREG004, fmt.Sprintf("version '%s' is reserved: latest, stable and edge are not exact versions", v), "give an exact version")
}

// RegLockPin is E-REG-005; what is "the manifest declares" or "this install is".
func RegLockPin(name, pinVersion, pinHash, what, version, hash string) *Diagnostic {
	return mk(EREG005, fmt.Sprintf("murmur.lock pins %s at %s@sha256:%s, but %s %s@sha256:%s", name, pinVersion, pinHash, what, version, hash),
		"change the pin or the version")
}

// RegStoreHolds is E-REG-006: the global store already holds
// name@version with other bytes (installed from source), and an install
// without --force never replaces them.
func RegStoreHolds(name, version, oldHash, source, hash, dir string) *Diagnostic {
	from := ""
	if source != "" {
		from = " (installed from " + source + ")"
	}
	return mk(EREG006, fmt.Sprintf("the global store already holds %s@%s with other bytes: sha256:%s%s; this install is sha256:%s", name, version, oldHash, from, hash),
		fmt.Sprintf("give this artifact another name or version, or run mur install -g --force %s to replace the stored one", ShellWord(dir)))
}

// RegLockPinInstall is E-REG-005 for `mur install <dir>` against a pin of
// another version or hash: the message is RegLockPin's; the hint names the
// command that re-pins it (the edit-run loop).
func RegLockPinInstall(name, pinVersion, pinHash, version, hash, dir string) *Diagnostic {
	d := RegLockPin(name, pinVersion, pinHash, "this install is", version, hash)
	d.Hint = fmt.Sprintf("run mur install --force %s to replace the pin with this install, or give it another version", ShellWord(dir))
	return d
}

// WitLevel is the E-WIT-LEVEL-001 text inside a pull-artifact does-not-fit: refusal (tools.md PULL-5).
func WitLevel(name, version, newest string) string {
	return fmt.Sprintf("does-not-fit: E-WIT-LEVEL-001: %s@%s does not fit this mur; newest version that fits: %s", name, version, newest)
}

// BldName is E-BLD-001.
func BldName(name, reason string) *Diagnostic {
	return mk(EBLD001, fmt.Sprintf("invalid artifact name '%s': %s", name, reason), hintArtifactNm)
}

// BldSymlink is E-BLD-002.
func BldSymlink(path string) *Diagnostic {
	return mk(EBLD002, path+" is a symlink; an artifact holds regular files and directories only",
		"replace the link with the file it points to")
}

// NewName is E-NEW-002.
func NewName(name, reason string) *Diagnostic {
	return mk(ENEW002, fmt.Sprintf("'%s' is not an artifact name: %s", name, reason), hintArtifactNm)
}

// NewExists is E-NEW-003.
func NewExists(name string) *Diagnostic {
	return mk(ENEW003, fmt.Sprintf("./%s already exists", name), "choose another name or move it away")
}

// TrcNoSessionEnd is E-TRC-001 (no hint).
func TrcNoSessionEnd(path string) *Diagnostic {
	return mk(ETRC001, path+": no session_end event found", "")
}

// TrcNoSessionStart is E-TRC-001 (no hint).
func TrcNoSessionStart(path string) *Diagnostic {
	return mk(ETRC001, path+": no session_start event found", "")
}

// TrcMalformed is E-TRC-001 for a line that is not JSON.
func TrcMalformed(path string, line int, err string) *Diagnostic {
	return mk(ETRC001, fmt.Sprintf("%s:%d: malformed JSON: %s", path, line, err), "")
}

// TrcNoSessionIn is E-TRC-002 for an empty records group.
func TrcNoSessionIn(group string) *Diagnostic {
	return mk(ETRC002, "no session in "+group, hintTraceAddr)
}

// TrcNoMatch is E-TRC-002 when no session matches.
func TrcNoMatch(arg string) *Diagnostic {
	return mk(ETRC002, fmt.Sprintf("no session matches '%s'", arg), hintTraceAddr)
}

// TrcAmbiguous is E-TRC-002 when several sessions match.
func TrcAmbiguous(arg string, sessions []string) *Diagnostic {
	return mk(ETRC002, fmt.Sprintf("'%s' matches %d sessions: %s", arg, len(sessions), strings.Join(sessions, ", ")), hintTraceAddr)
}

// TrcFormationID is E-TRC-002 for a frm_ id where a session is wanted
// (murhome.Resolve; mur trace show reads a formation itself, FCLI-8).
func TrcFormationID(arg string) *Diagnostic {
	return mk(ETRC002, fmt.Sprintf("'%s' is a formation id; this build lists member sessions only", arg), hintTraceAddr)
}

// SecUnknownKey is W-SEC-019 for an unrecognised key at file:line:col (at);
// block is "" at the top level, near "" when no known key is close.
func SecUnknownKey(at, key, block, near string) *Diagnostic {
	where := "at the top level"
	if block != "" {
		where = "in " + block
	}
	msg := fmt.Sprintf("%s: unrecognized key '%s' %s", at, key, where)
	if near != "" {
		msg += fmt.Sprintf(" — did you mean '%s'?", near)
	}
	return mk(WSEC019, msg+"; it was parsed and ignored", hintCorrectKey)
}

// SecNotSupported is W-SEC-019 for a LATER key.
func SecNotSupported(dottedKey string) *Diagnostic {
	return mk(WSEC019, fmt.Sprintf("'%s' is not supported by this build; it was validated and ignored", dottedKey), hintCorrectKey)
}

// SecCompactionProcess is W-SEC-019 for inference.compaction under
// transport: process, where the harness compacts its own conversation.
func SecCompactionProcess(dottedKey string) *Diagnostic {
	return mk(WSEC019, fmt.Sprintf("'%s' does nothing under inference.transport: process: the harness keeps and compacts its own conversation", dottedKey), hintCorrectKey)
}

// SecVersionPin is W-SEC-019 for a mur_version other than the running one.
func SecVersionPin(pinned, running string) *Diagnostic {
	return mk(WSEC019, fmt.Sprintf("this manifest pins mur %s, you are running %s", pinned, running), hintCorrectKey)
}

// SecShellShadowed is W-SEC-019 for a shell.allow entry named like a runtime-provided tool.
func SecShellShadowed(name string) *Diagnostic {
	return mk(WSEC019, fmt.Sprintf("capabilities.shell.allow entry '%s' is ignored: the runtime provides a tool of that name", name), hintCorrectKey)
}

// SecGraceLifecycle is W-SEC-022.
func SecGraceLifecycle() *Diagnostic {
	return mk(WSEC022, "lifecycle.shell_grace_secs is set, but this lifecycle cannot receive a background command's completion; declare lifecycle.task_acceptance: queue with lifecycle.after_task: sleep",
		"declare lifecycle.task_acceptance: queue with lifecycle.after_task: sleep")
}

// SecRunningRecord is W-SEC-023.
func SecRunningRecord(path, osErr string) *Diagnostic {
	return mk(WSEC023, fmt.Sprintf("this session's running record could not be written (%s: %s), so mur ps, mur token and mur stop cannot find it", path, osErr), "")
}

// SecOpenDoor is W-SEC-032.
func SecOpenDoor(addr string) *Diagnostic {
	return mk(WSEC032, fmt.Sprintf("the door is bound to %s and network.authentication is not declared — any caller that reaches it can start, read, watch and cancel every task", addr),
		"declare network.authentication, or bind to loopback")
}

// RunMaxTokensCut is W-RUN-001.
func RunMaxTokensCut(n int) *Diagnostic {
	return mk(WRUN001, fmt.Sprintf("this turn stopped at the inference.max_tokens output cap of %d tokens, so out/result.txt holds a fragment rather than a finished answer", n), "")
}

// RunChoiceUnavailable is W-RUN-003.
func RunChoiceUnavailable(name, kind, model, credential string) *Diagnostic {
	return mk(WRUN003, fmt.Sprintf("driver choice '%s' (%s, model %s) is unavailable: its credential %s is not set, so a switch to it will be refused; the session runs on the primary", name, kind, model, credential),
		fmt.Sprintf("set %s and restart", credential))
}

// SecTokenInArgv is W-SEC-033: `mur conformance --token
// <kind>=<token>` put a token on the command line, which every local user
// can read (ps, /proc/<pid>/cmdline); envVar is the kind's variable.
func SecTokenInArgv(kind, envVar string) *Diagnostic {
	return mk(WSEC033, fmt.Sprintf("--token put the %s token on the command line, where other local users can read it (ps, /proc/<pid>/cmdline); give --token %s=@<file> or %s instead", kind, kind, envVar), "")
}

// HookConfig is E-MAN-003 for a hook artifact whose own contract fields
// disagree (murmur's hook contract table): `hook <name>@<version> invalid
// config: <fault>`, the key to correct in the hint.
func HookConfig(name, version, key, fault string) *Diagnostic {
	return mk(EMAN003, fmt.Sprintf("hook %s@%s invalid config: %s", name, version, fault), "correct "+key)
}
