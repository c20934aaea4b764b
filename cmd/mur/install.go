package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/driver/scripted"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/store"
)

// cmdInstall is `mur install` (capsule.md CLI-6).
var cmdInstall = &command{
	name:    "install",
	summary: "install an artifact into the project or global store",
	run:     runInstall,
}

const installUsage = `Usage: mur install <dir> [-g] [--force] [--json]
       mur install [--json]
       mur install <name>@<version> [--json]

mur install <dir> copies the artifact in <dir> (its murmur.yaml names it) into
the project store, <project>/.murmur/artifacts/, and pins it in
<project>/murmur.lock; with -g, or outside any project, into the global store,
$MURMUR_HOME/artifacts/, leaving the lock alone. <project> is the nearest
directory at or above the current one holding murmur.yaml or roster.yaml.
When murmur.lock pins the artifact at another version or hash (it changed
since it was installed), --force replaces the pin and prints the old and new
digests; without it the install is refused. The global store never replaces
a stored name@version with other bytes unless --force is given; then it
prints the old and new digests and every murmur.lock pin the replacement
broke.

mur install copies every artifact the project's murmur.yaml declares from the
global store into the project store and pins it; mur install <name>@<version>
does the same for one artifact. --json prints one JSON document instead of
the lines (docs/json.md).`

func runInstall(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	global := fs.Bool("g", false, "install into the global store")
	force := fs.Bool("force", false, "replace murmur.lock's pin of the artifact, or the global store's other bytes, with this install")
	jsonOut := fs.Bool("json", false, "print one JSON document (docs/json.md)")
	pos, code, done := parseInterspersed(env, "install", installUsage, fs, args)
	if done {
		return code
	}
	if len(pos) > 1 {
		return usageError(env, "install", fmt.Sprintf("unexpected argument '%s'", pos[1]))
	}
	ss, err := cwdStores(env)
	if err != nil {
		return fail(env, "install", err)
	}
	switch {
	case len(pos) == 0 && *global:
		return usageError(env, "install", "-g needs a <dir> to install")
	case *force && (len(pos) == 0 || !isDir(pos[0])):
		return usageError(env, "install", "--force needs a <dir> to install")
	case len(pos) > 0 && !isDir(pos[0]) && strings.Contains(pos[0], "@") && *global:
		return usageError(env, "install", "-g takes a <dir>, not <name>@<version>")
	}
	var results []store.Resolved
	switch {
	case len(pos) == 0:
		results, err = installDeclared(env, ss)
	case isDir(pos[0]):
		results, err = installDir(env, ss, pos[0], *global, *force)
	case strings.Contains(pos[0], "@"):
		results, err = installRef(ss, pos[0])
	default:
		err = diag.IONotFound(pos[0])
	}
	// What was installed before a failure is reported too (CLI-6).
	if *jsonOut {
		if len(results) > 0 || err == nil {
			if werr := writeJSON(env.Stdout, installDocument(results)); werr != nil && err == nil {
				err = werr
			}
		}
	} else {
		for _, r := range results {
			printInstalled(env.Stdout, r)
		}
	}
	if err != nil {
		return fail(env, "install", err)
	}
	return 0
}

// installJSON is `mur install --json` (docs/json.md): each artifact
// installed, in order.
type installJSON struct {
	Installed []installed `json:"installed"`
}

// installed is one artifact of installJSON; Repinned is the murmur.lock pin
// --force replaced.
type installed struct {
	Name     string       `json:"name"`
	Version  string       `json:"version"`
	Runtime  string       `json:"runtime"`
	SHA256   string       `json:"sha256"`
	Scope    store.Scope  `json:"scope"`
	Repinned *repinnedPin `json:"repinned,omitempty"`
	Replaced *replacedArt `json:"replaced,omitempty"`
}

// replacedArt is the global store entry --force replaced with other bytes.
type replacedArt struct {
	SHA256     string   `json:"sha256"`
	SourcePath string   `json:"source_path"`
	BrokenPins []string `json:"broken_pins"`
}

type repinnedPin struct {
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
}

func installDocument(rs []store.Resolved) installJSON {
	doc := installJSON{Installed: make([]installed, 0, len(rs))}
	for _, r := range rs {
		i := installed{Name: r.Meta.Name, Version: r.Meta.Version, Runtime: r.Meta.Runtime, SHA256: r.SHA256, Scope: r.Scope}
		if p := r.Repinned; p != nil {
			i.Repinned = &repinnedPin{Version: p.ResolvedVersion, SHA256: p.SHA256}
		}
		if old := r.Replaced; old != nil {
			i.Replaced = &replacedArt{SHA256: old.SHA256, SourcePath: old.SourcePath, BrokenPins: append([]string{}, r.BrokenPins...)}
		}
		doc.Installed = append(doc.Installed, i)
	}
	return doc
}

// cwdStores locates the stores for a command run in the current directory
// (STORE-2): the nearest project at or above it, and $MURMUR_HOME.
func cwdStores(env *Env) (store.Stores, error) {
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return store.Stores{}, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return store.Stores{}, fmt.Errorf("read the current directory: %w", err)
	}
	project, _ := store.FindProject(cwd)
	return store.Stores{ProjectDir: project, Home: home}, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// installDir is `mur install <dir> [-g]`.
func installDir(env *Env, ss store.Stores, dir string, global, force bool) ([]store.Resolved, error) {
	m, warnings, err := manifest.LoadArtifact(dir)
	printWarnings(env.Stderr, warnings)
	if err != nil {
		return nil, err
	}
	// A capsule whose system prompt or script cannot be read would install
	// and then fail at every run: refuse it here, as mur run would. Only
	// files inside dir are looked for; one outside is never installed, and
	// mur run refuses it as outside the installed capsule.
	if m.Kind() == "capsule" && m.Inference != nil {
		if err := checkOwnFiles(m, dir); err != nil {
			return nil, err
		}
	}
	scope := store.ScopeProject
	if global || ss.ProjectDir == "" {
		scope = store.ScopeGlobal
	}
	id := store.ArtifactID{Name: m.Name, Version: m.Version, Runtime: m.Kind()}
	install := ss.Install
	if force {
		install = ss.InstallForce
	}
	r, err := install(dir, id, scope)
	if err != nil {
		return nil, err
	}
	return []store.Resolved{r}, nil
}

// checkOwnFiles is checkPromptAndScripts for the files of m that lie inside
// dir, the directory being installed, and are installed with it.
func checkOwnFiles(m *manifest.Manifest, dir string) error {
	root, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	inside := func(p string) bool {
		rel, err := filepath.Rel(root, p)
		return err == nil && store.Copied(filepath.ToSlash(rel))
	}
	if p := m.SystemPromptPath(); p != "" && inside(p) {
		if _, err := os.ReadFile(p); err != nil {
			return diag.RunUnreadable(p, doctorErrText(err)).WithErr(err)
		}
	}
	for _, c := range m.Inference.Choices() {
		if p := m.ScriptPath(c); c.Kind == manifest.KindScripted && inside(p) {
			if _, err := scripted.Load(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// installDeclared is `mur install`: the project manifest's artifacts[].
func installDeclared(env *Env, ss store.Stores) ([]store.Resolved, error) {
	if ss.ProjectDir == "" {
		return nil, noProjectManifest()
	}
	m, warnings, err := manifest.LoadArtifact(ss.ProjectDir)
	printWarnings(env.Stderr, warnings)
	if err != nil {
		return nil, err
	}
	arts := m.StoreArtifacts() // the built-in request-input is never installed (INP-1)
	refs := make([]store.ArtifactID, 0, len(arts))
	for _, a := range arts {
		refs = append(refs, store.ArtifactID{Name: a.Name, Version: a.Version})
	}
	return ss.InstallFromGlobal(refs)
}

// installRef is `mur install <name>@<version>`.
func installRef(ss store.Stores, ref string) ([]store.Resolved, error) {
	name, version, _ := strings.Cut(ref, "@")
	if p := manifest.NameProblem(name); p != "" {
		return nil, diag.BldName(name, p)
	}
	if manifest.IsReservedVersion(version) {
		return nil, diag.RegReservedVersion(version)
	}
	if p := manifest.VersionProblem(version); p != "" {
		return nil, &errUsage{msg: fmt.Sprintf("'%s' is not <name>@<version>: the version %s", ref, p)}
	}
	if ss.ProjectDir == "" {
		return nil, noProjectManifest()
	}
	return ss.InstallFromGlobal([]store.ArtifactID{{Name: name, Version: version}})
}

// noProjectManifest is E-IO-001 for the murmur.yaml a project install needs.
func noProjectManifest() error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	path := filepath.Join(cwd, manifest.FileName)
	return diag.IONotFound(path).WithErr(errors.New("no project at or above the current directory"))
}

// printInstalled writes CLI-6's line for one installed artifact, and the
// pin --force replaced.
func printInstalled(w io.Writer, r store.Resolved) {
	fmt.Fprintf(w, "installed %s@%s (%s) sha256:%s into the %s store\n",
		r.Meta.Name, r.Meta.Version, r.Meta.Runtime, r.SHA256, r.Scope)
	if p := r.Repinned; p != nil {
		fmt.Fprintf(w, "re-pinned %s in murmur.lock: %s@sha256:%s → %s@sha256:%s\n", r.Meta.Name, p.ResolvedVersion, p.SHA256, r.Meta.Version, r.SHA256)
	}
	if old := r.Replaced; old != nil {
		from := ""
		if old.SourcePath != "" {
			from = " (installed from " + old.SourcePath + ")"
		}
		fmt.Fprintf(w, "replaced %s@%s in the global store: sha256:%s%s → sha256:%s\n", r.Meta.Name, r.Meta.Version, old.SHA256, from, r.SHA256)
		for _, lock := range r.BrokenPins {
			fmt.Fprintf(w, "broke the pin of %s@%s in %s: it pins sha256:%s, which no store holds now; run mur install --force <dir> in that project to pin the new bytes\n", r.Meta.Name, r.Meta.Version, lock, old.SHA256)
		}
	}
}

// printWarnings writes each warning diagnostic (stderr, README.md).
func printWarnings(w io.Writer, ds []*diag.Diagnostic) {
	for _, d := range ds {
		fmt.Fprint(w, d.Render())
	}
}
