package manifest

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// NameProblem returns why name is not an artifact name ([a-z0-9-], 1–100
// characters, no leading or trailing '-'; capsule.md §1.2), or "" when it is
// one. The text is the <reason> of E-BLD-001, E-NEW-002 and E-MAN-003.
func NameProblem(name string) string {
	switch {
	case name == "":
		return "it is empty"
	case len(name) > 100:
		return fmt.Sprintf("it is %d characters long; at most 100 are allowed", len(name))
	}
	for _, r := range name {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return fmt.Sprintf("it holds %q; only a-z, 0-9 and - are allowed", r)
		}
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		return "it starts or ends with -"
	}
	return ""
}

// versionSyntax is a SemVer 2.0.0 version (MAJOR.MINOR.PATCH with an
// optional -PRERELEASE and +BUILD), or its MAJOR or MAJOR.MINOR shorthand
// (MAN-3: `version: 1.10`), as golang.org/x/mod/semver reads one without
// its leading "v". Nothing else is a version, so no version names a
// directory other than its own (".", "..", separators).
var versionSyntax = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*)){0,2}$|` +
	`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)` +
	`(-(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
	`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)

// VersionSyntax is the shape VersionProblem asks for, as its messages name it.
const VersionSyntax = "MAJOR[.MINOR[.PATCH[-PRERELEASE][+BUILD]]]"

// VersionProblem returns why v is not a version (capsule.md §1.2: at most 64
// characters, no whitespace or '/'; ours: a SemVer version or its MAJOR or
// MAJOR.MINOR shorthand, versionSyntax), or "" when it is one. Every version
// that becomes part of a store path is checked with it where it is read. The
// reserved words latest, stable and edge pass here (a plain path segment;
// E-REG-004 and E-ROS-001 name them): see IsReservedVersion.
func VersionProblem(v string) string {
	switch {
	case v == "":
		return "it is empty"
	case len(v) > 64:
		return fmt.Sprintf("it is %d characters long; at most 64 are allowed", len(v))
	case strings.ContainsFunc(v, unicode.IsSpace):
		return "it holds whitespace"
	case strings.Contains(v, "/"):
		return "it holds '/'"
	case !versionSyntax.MatchString(v) && !IsReservedVersion(v):
		return "it is not a SemVer version (" + VersionSyntax + ")"
	}
	return ""
}

// IsReservedVersion reports whether v is latest, stable or edge (E-REG-004).
func IsReservedVersion(v string) bool {
	return v == "latest" || v == "stable" || v == "edge"
}

// SplitRef splits an artifact reference `<scope>/<name>` at its last '/'
// (MAN-6): scope is "" when there is none.
func SplitRef(ref string) (scope, name string) {
	i := strings.LastIndex(ref, "/")
	if i < 0 {
		return "", ref
	}
	return ref[:i], ref[i+1:]
}

// ParseSpawnRef parses a capabilities.spawn.allow entry, an exact
// <scope>/<name>@<version> (tools.md DLG-1: latest, stable and edge resolve
// to nothing, so they are refused here). why is "" when it is one, else the
// reason E-MAN-003 gives.
func ParseSpawnRef(e string) (ref SpawnRef, why string) {
	at := strings.LastIndex(e, "@")
	slash := strings.Index(e, "/")
	switch {
	case slash < 0:
		return ref, "it has no <scope>/"
	case at < slash:
		return ref, "it has no @<version>"
	}
	ref = SpawnRef{Scope: e[:slash], Name: e[slash+1 : at], Version: e[at+1:]}
	if p := NameProblem(ref.Scope); p != "" {
		return SpawnRef{}, "its scope is not a name: " + p
	}
	if p := NameProblem(ref.Name); p != "" {
		return SpawnRef{}, "its name is not a capsule name: " + p
	}
	if IsReservedVersion(ref.Version) {
		return SpawnRef{}, fmt.Sprintf("'%s' is reserved and resolves to no capsule", ref.Version)
	}
	if p := VersionProblem(ref.Version); p != "" {
		return SpawnRef{}, "its version is not a version: " + p
	}
	return ref, ""
}
