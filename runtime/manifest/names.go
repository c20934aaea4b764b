package manifest

import (
	"fmt"
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

// VersionProblem returns why v is not a version (non-empty, no whitespace or
// '/', at most 64 characters; capsule.md §1.2), or "" when it is one. The
// reserved words latest, stable and edge pass here: see IsReservedVersion.
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
