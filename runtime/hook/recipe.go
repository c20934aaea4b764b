package hook

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Recipe is the body a make, just or npm run command names, read out of
// the workdir, so a policy decides on what the command will run rather
// than on its name: `make <target>` (Makefile, makefile or GNUmakefile),
// `just <recipe>` (justfile, Justfile, .justfile), `npm run <script>`
// (package.json's scripts). ok is false when no body was resolved — which
// says nothing about the call.
func Recipe(workdir string, argv []string) (body string, ok bool) {
	if len(argv) < 2 {
		return "", false
	}
	bin := filepath.Base(argv[0])
	switch {
	case bin == "make" || bin == "gmake":
		name := firstArg(argv[1:])
		return indentedBody(workdir, []string{"GNUmakefile", "makefile", "Makefile"}, name, func(l string) bool { return strings.HasPrefix(l, "\t") })
	case bin == "just":
		name := firstArg(argv[1:])
		return indentedBody(workdir, []string{"justfile", "Justfile", ".justfile"}, name, func(l string) bool {
			return strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")
		})
	case bin == "npm" && len(argv) >= 3 && (argv[1] == "run" || argv[1] == "run-script"):
		b, err := os.ReadFile(filepath.Join(workdir, "package.json"))
		if err != nil {
			return "", false
		}
		var pkg struct {
			Scripts map[string]string `json:"scripts"`
		}
		if json.Unmarshal(b, &pkg) != nil {
			return "", false
		}
		s, ok := pkg.Scripts[argv[2]]
		return s, ok
	}
	return "", false
}

// firstArg is the first argument that is not a flag, "" when none (make's
// and just's default target is not resolved).
func firstArg(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			return a
		}
	}
	return ""
}

// indentedBody reads the first of files that exists and returns the
// indented lines under the rule line `<name>:` (dependencies allowed after
// the colon), without their indentation.
func indentedBody(workdir string, files []string, name string, indented func(string) bool) (string, bool) {
	if name == "" {
		return "", false
	}
	for _, f := range files {
		fh, err := os.Open(filepath.Join(workdir, f))
		if err != nil {
			continue
		}
		defer fh.Close()
		sc := bufio.NewScanner(fh)
		var body []string
		in, found := false, false
		for sc.Scan() {
			l := sc.Text()
			switch {
			case in && indented(l):
				body = append(body, strings.TrimLeft(l, " \t"))
			case in && strings.TrimSpace(l) == "":
			case in:
				return strings.Join(body, "\n"), true
			default:
				head, _, hasColon := strings.Cut(l, ":")
				if hasColon && !indented(l) && strings.Contains(" "+strings.TrimSpace(head)+" ", " "+name+" ") && !strings.HasPrefix(strings.TrimSpace(l[len(head)+1:]), "=") {
					in, found = true, true
				}
			}
		}
		if found {
			return strings.Join(body, "\n"), true
		}
		return "", false
	}
	return "", false
}
