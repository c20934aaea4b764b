package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/runtime/diag"
)

// DotEnvFile is the environment file SES-10 loads.
const DotEnvFile = ".env"

// Env is the environment after .env (SES-10): the process environment wins,
// .env fills only the names it lacks. The zero value reads nothing.
type Env struct {
	// Path is the .env file that was loaded, "" when none was.
	Path string
	// Vars are the names .env added (not those the process already had).
	Vars map[string]string
	base func(string) string
}

// Getenv returns name's value: the base environment's when set and
// non-empty, else .env's.
func (e Env) Getenv(name string) string {
	if e.base != nil {
		if v := e.base(name); v != "" {
			return v
		}
	}
	return e.Vars[name]
}

// LoadDotEnv loads <project>/.env, or when project is "" or holds none,
// <cwd>/.env, without overriding getenv (SES-10). A missing file is no
// error; an unreadable or malformed one is E-IO-001. Lines are NAME=VALUE,
// optionally prefixed "export "; blank lines and lines starting '#' are
// skipped; a value in matching single or double quotes loses them (double
// quotes also read \n, \" and \\), an unquoted value loses a trailing " #…"
// comment and surrounding blanks.
func LoadDotEnv(project, cwd string, getenv func(string) string) (Env, error) {
	env := Env{base: getenv, Vars: map[string]string{}}
	var dirs []string
	if project != "" {
		dirs = append(dirs, project)
	}
	if cwd != "" && cwd != project {
		dirs = append(dirs, cwd)
	}
	for _, dir := range dirs {
		path := filepath.Join(dir, DotEnvFile)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return env, diag.IOError(path, osErrText(err)).WithErr(err)
		}
		vars, err := ParseDotEnv(data)
		if err != nil {
			return env, diag.IOError(path, err.Error())
		}
		env.Path = path
		for k, v := range vars {
			if getenv == nil || getenv(k) == "" {
				env.Vars[k] = v
			}
		}
		return env, nil
	}
	return env, nil
}

// ParseDotEnv parses .env bytes (see LoadDotEnv); the error names the line.
func ParseDotEnv(data []byte) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, val, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !validEnvName(name) {
			return nil, fmt.Errorf("line %d is not NAME=VALUE", n)
		}
		v, err := dotEnvValue(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		out[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func dotEnvValue(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	switch q := v[0]; q {
	case '"', '\'':
		end := strings.LastIndexByte(v, q)
		if end == 0 {
			return "", fmt.Errorf("unclosed %c quote", q)
		}
		inner := v[1:end]
		if q == '"' {
			inner = strings.NewReplacer(`\n`, "\n", `\"`, `"`, `\\`, `\`).Replace(inner)
		}
		return inner, nil
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v), nil
}
