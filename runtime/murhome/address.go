package murhome

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/diag"
)

// MinSuffix is the shortest id suffix that names a session (CLI-9).
const MinSuffix = 4

// Resolve names one session of the records group for `mur trace show`
// (capsule.md CLI-9) and returns the path of its trace.jsonl. arg is a full
// id; an id suffix of at least 4 characters (case-insensitive; several
// matches are refused, listing them newest first); `@N`, the N-th newest;
// or a path to a trace.jsonl or a session directory (it holds a "/", ends
// ".jsonl", or is "." or ".."). "" means "@1". Errors are *diag.Diagnostic:
// E-TRC-002 for no match, an ambiguous suffix or a frm_ id (which names no
// session: mur trace show takes a formation before it gets here, FCLI-8);
// E-IO-001 for a path that does not exist; other I/O errors are returned
// wrapped.
func Resolve(group, arg string) (string, error) {
	if arg == "" {
		arg = "@1"
	}
	if strings.HasPrefix(arg, a2a.PrefixFormation) {
		return "", diag.TrcFormationID(arg)
	}
	if isPath(arg) {
		return resolvePath(arg)
	}
	ids, err := Sessions(group)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", diag.TrcNoSessionIn(group)
	}
	if n, ok := strings.CutPrefix(arg, "@"); ok {
		i, err := strconv.Atoi(n)
		if err != nil || i < 1 || i > len(ids) || n != strconv.Itoa(i) {
			return "", diag.TrcNoMatch(arg)
		}
		return filepath.Join(group, ids[i-1], TraceFile), nil
	}
	matches := MatchSuffix(ids, arg)
	switch len(matches) {
	case 0:
		return "", diag.TrcNoMatch(arg)
	case 1:
		return filepath.Join(group, matches[0], TraceFile), nil
	}
	return "", diag.TrcAmbiguous(arg, matches)
}

// MatchSuffix returns the ids (kept in their order) that end with suffix,
// compared case-insensitively; a suffix shorter than MinSuffix matches none.
// A full id is its own suffix.
func MatchSuffix(ids []string, suffix string) []string {
	if len(suffix) < MinSuffix {
		return nil
	}
	s := strings.ToLower(suffix)
	var out []string
	for _, id := range ids {
		if strings.HasSuffix(strings.ToLower(id), s) {
			out = append(out, id)
		}
	}
	return out
}

func isPath(arg string) bool {
	return strings.ContainsRune(arg, filepath.Separator) || strings.HasSuffix(arg, ".jsonl") || arg == "." || arg == ".."
}

func resolvePath(arg string) (string, error) {
	fi, err := os.Stat(arg)
	if os.IsNotExist(err) {
		return "", diag.IONotFound(arg).WithErr(err)
	}
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return filepath.Join(arg, TraceFile), nil
	}
	return arg, nil
}
