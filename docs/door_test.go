package docs

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/murmur-go/mur/door"
)

// TestDoorReference: docs/door.md names the door's defaults as the door
// package declares them.
func TestDoorReference(t *testing.T) {
	b, err := os.ReadFile("door.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	row := func(prefix string) string {
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "| "+prefix) {
				return l
			}
		}
		t.Fatalf("door.md has no row for %q", prefix)
		return ""
	}
	for _, c := range []struct{ row, want string }{
		{"connections open at once", "| " + strconv.Itoa(door.DefaultMaxConnections) + " |"},
		{"bytes of large request bodies", "| " + strconv.FormatInt(door.DefaultBodyBytes, 10) + " ("},
		{"time to send a request body", "| " + strconv.Itoa(int(door.DefaultBodyTimeout.Seconds())) + " s from"},
		{"one request body", "| " + strconv.Itoa(door.DefaultMaxBody>>20) + " MiB |"},
	} {
		if r := row(c.row); !strings.Contains(r, c.want) {
			t.Errorf("door.md's %q row is\n%s\nwant it to hold %q", c.row, r, c.want)
		}
	}
}

// TestDoorCitesNoSpecIDs: docs/door.md, written for a user of the door,
// states its rules in words — no requirement ID (a diagnostic code, E-… or
// W-…, and the A2A TCK's own test names are not requirement IDs).
func TestDoorCitesNoSpecIDs(t *testing.T) {
	b, err := os.ReadFile("door.md")
	if err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`(^|[^-_A-Za-z])([A-Z]{2,6}-[0-9]+)\b`)
	for _, m := range id.FindAllStringSubmatch(string(b), -1) {
		if !strings.HasPrefix(m[2], "E-") && !strings.HasPrefix(m[2], "W-") {
			t.Errorf("door.md cites %s", m[2])
		}
	}
}
