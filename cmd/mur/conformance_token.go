package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/murmur-go/mur/runtime/diag"
)

// tokenKinds are the kinds of token `mur conformance` takes, in the order
// --help lists them; the first is the one an unnamed --token gives.
var tokenKinds = []string{"door", "scoped", "member"}

// tokenEnv is the environment variable that gives a kind's token:
// MURMUR_CONFORMANCE_TOKEN_DOOR, …_SCOPED, …_MEMBER.
func tokenEnv(kind string) string { return "MURMUR_CONFORMANCE_TOKEN_" + strings.ToUpper(kind) }

// maxTokenBytes bounds a token file or stdin: a token is a line, not a file.
const maxTokenBytes = 64 << 10

// tokenFlags is --token, given once per kind, as [<kind>=]<token> (on the
// command line, where other local users can read it: a warning) or
// [<kind>=]@<file> (@- for stdin). Set never fails: the flag package would
// print the value, a token, in its error; err is reported after parsing,
// naming only the kind.
type tokenFlags struct {
	given map[string]string // kind → the value after "<kind>="
	argv  []string          // kinds given as the token itself, in order
	err   error
}

func (tf *tokenFlags) String() string { return "" }

func (tf *tokenFlags) Set(v string) error {
	kind, val := tokenKinds[0], v // an unnamed token is the door token
	for _, k := range tokenKinds {
		if rest, ok := strings.CutPrefix(v, k+"="); ok {
			kind, val = k, rest
		}
	}
	if tf.given == nil {
		tf.given = map[string]string{}
	}
	switch _, twice := tf.given[kind]; {
	case tf.err != nil:
	case val == "":
		tf.err = fmt.Errorf("--token %s= is empty", kind)
	case twice:
		tf.err = fmt.Errorf("--token %s= is given twice: give each kind once", kind)
	case val == "@":
		tf.err = fmt.Errorf("--token %s=@ names no file: write --token %s=@<file>, or @- for stdin", kind, kind)
	default:
		tf.given[kind] = val
		if !strings.HasPrefix(val, "@") {
			tf.argv = append(tf.argv, kind)
		}
	}
	return nil
}

// resolve returns each kind's token: --token's, read from its file or stdin
// when it is @<file> or @-, else the kind's environment variable. A file
// that cannot be read is E-IO-001; one that holds no token, or more than
// one word, a usage error (*errUsage), as is a second kind reading stdin.
func (tf *tokenFlags) resolve(env *Env) (map[string]string, error) {
	var stdin []string
	for _, kind := range tokenKinds {
		if tf.given[kind] == "@-" {
			stdin = append(stdin, kind)
		}
	}
	if len(stdin) > 1 {
		return nil, usagef("--token %s=@- and --token %s=@- both read stdin: give one of them as a file", stdin[0], stdin[1])
	}
	out := map[string]string{}
	for _, kind := range tokenKinds {
		v, ok := tf.given[kind]
		if !ok {
			out[kind] = strings.TrimSpace(env.Getenv(tokenEnv(kind)))
			continue
		}
		path, fromFile := strings.CutPrefix(v, "@")
		if !fromFile {
			out[kind] = v
			continue
		}
		tok, err := readToken(env, path)
		if err != nil {
			return nil, err
		}
		switch {
		case tok == "":
			return nil, usagef("--token %s=@%s: it holds no token", kind, path)
		case strings.ContainsAny(tok, " \t\r\n"):
			return nil, usagef("--token %s=@%s: it holds more than a token (mur token prints \"<name> <token>\": keep only the token)", kind, path)
		}
		out[kind] = tok
	}
	return out, nil
}

// readToken reads a token file (or stdin for "-"), bounded, without its
// surrounding white space.
func readToken(env *Env, path string) (string, error) {
	var r io.Reader = env.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return "", diag.IONotFound(path)
		}
		if err != nil {
			return "", diag.IOError(path, pathErrText(err))
		}
		defer f.Close()
		r = f
	}
	if r == nil {
		r = strings.NewReader("")
	}
	b, err := io.ReadAll(io.LimitReader(r, maxTokenBytes+1))
	switch {
	case err != nil:
		return "", diag.IOError(path, pathErrText(err))
	case len(b) > maxTokenBytes:
		return "", diag.IOError(path, fmt.Sprintf("over %d bytes; a token file holds one token", maxTokenBytes))
	}
	return strings.TrimSpace(string(b)), nil
}

// pathErrText is an os error's text without its operation and path.
func pathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
