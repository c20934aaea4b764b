// Command genreq fills the rule column of docs/requirements.md from the
// specification: for every requirement row it writes the words the spec
// defines the ID with (a "- **ID** …" bullet or a "**ID (MUST)** …"
// paragraph, continuation lines joined). Rows whose ID the spec does not
// define keep the rule they carry; a row with neither is an error. The
// summaries, headings and prose are kept as they are. CI has no spec, so
// the committed file is what TestRequirementIndex reads.
//
//	go run ./docs/internal/genreq -spec ../shared/spec
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-go/mur/docs/internal/reqindex"
)

func main() {
	spec := flag.String("spec", filepath.Join("..", "shared", "spec"), "the specification's directory")
	file := flag.String("file", filepath.Join("docs", "requirements.md"), "the requirement index to rewrite")
	flag.Parse()
	if err := run(*spec, *file); err != nil {
		fmt.Fprintln(os.Stderr, "genreq:", err)
		os.Exit(1)
	}
}

func run(specDir, file string) error {
	files, err := filepath.Glob(filepath.Join(specDir, "*.md"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no *.md in %s: name the specification's directory with -spec", specDir)
	}
	rules := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		for id, text := range reqindex.Definitions(string(data)) {
			if _, dup := rules[id]; !dup {
				rules[id] = text
			}
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, missing := reqindex.Fill(string(data), rules)
	if len(missing) > 0 {
		return fmt.Errorf("%s: no rule for %s: the spec does not define them; write the rule in the row's third cell", file, strings.Join(missing, ", "))
	}
	return os.WriteFile(file, []byte(out), 0o644)
}
