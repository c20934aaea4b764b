package roster_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/launcher/roster"
)

// Load reads roster.yaml and checks its shape (ADM-1 check 1); Admit then
// binds each member to an installed capsule. A roster that breaks a rule is
// one diagnostic naming the line and column.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "roster-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, roster.FileName)
	write := func(text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			panic(err)
		}
	}

	write(`roster_version: 1
members:
  - name: lead
    capsule: planner
    version: "0.1.0"
    entry: true
  - name: worker
    capsule: coder
    version: "0.2.0"
reachability: all
`)
	r, err := roster.Load(path)
	if err != nil {
		panic(err)
	}
	for _, m := range r.Members {
		fmt.Printf("%s: %s@%s entry=%v\n", m.Name, m.Capsule, m.Version, m.Entry)
	}
	fmt.Println("all:", r.All, "entry:", r.Members[r.Entry()].Name)

	write("roster_version: 1\nmembers: []\n")
	_, err = roster.Load(path)
	fmt.Println(err)
	// Output:
	// lead: planner@0.1.0 entry=true
	// worker: coder@0.2.0 entry=false
	// all: true entry: lead
	// roster.yaml:2:10: members: must list at least one member
}
