package reqindex

import (
	"reflect"
	"testing"
)

const spec = `# Doc

- **AB-1** A bullet rule
  that wraps, with a | pipe.
- **AB-2 Router.** chi: card first.
**CD-3 (MUST) Edges.** Rules add;
duplicates count once.

**CD-4 (SHOULD)** Short.
| AB-9 | a table row is no definition |
- **AB-1** a second definition is ignored
`

// TestDefinitions: bullets, titled bullets and paragraphs are read with
// their continuation lines, up to a blank line or the next definition.
func TestDefinitions(t *testing.T) {
	want := map[string]string{
		"AB-1": "A bullet rule that wraps, with a | pipe.",
		"AB-2": "Router. chi: card first.",
		"CD-3": "(MUST) Edges. Rules add; duplicates count once.",
		"CD-4": "(SHOULD) Short.",
	}
	if got := Definitions(spec); !reflect.DeepEqual(got, want) {
		t.Errorf("Definitions =\n%q\nwant\n%q", got, want)
	}
}

// TestFill: a row gets the spec's rule (pipes escaped), a row the spec does
// not define keeps its own, and a row with neither is reported.
func TestFill(t *testing.T) {
	doc := "| ID | requires |\n|---|---|\n| AB-1 | ours |\n| OWN-1 | ours | our rule \\| here |\n| NONE-1 | ours |\n"
	got, missing := Fill(doc, Definitions(spec))
	want := "| ID | requires | rule (the spec's words) |\n|---|---|---|\n| AB-1 | ours | A bullet rule that wraps, with a \\| pipe. |\n" +
		"| OWN-1 | ours | our rule \\| here |\n| NONE-1 | ours |  |\n"
	if got != want {
		t.Errorf("Fill =\n%s\nwant\n%s", got, want)
	}
	if !reflect.DeepEqual(missing, []string{"NONE-1"}) {
		t.Errorf("missing = %q, want [NONE-1]", missing)
	}
	if c := Cells(` a \| b | c `); !reflect.DeepEqual(c, []string{`a \| b`, "c"}) {
		t.Errorf("Cells = %q", c)
	}
}
