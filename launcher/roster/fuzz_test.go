package roster

import (
	"testing"

	"github.com/murmur-go/mur/runtime/diag"
)

// FuzzParse: any bytes give a roster or one E-ROS-001, never a panic (STYLE §9).
func FuzzParse(f *testing.F) {
	f.Add([]byte(s1))
	f.Add([]byte("roster_version: 1\nmembers:\n  - {name: a, capsule: a, version: 1, entry: true}\nreachability: all\n"))
	f.Add([]byte("members: [[]]\nreachability: [{from: a, to: [b]}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parse(data)
		if err != nil {
			if d, ok := diag.As(err); !ok || d.Code != diag.EROS001 || r != nil {
				t.Fatalf("parse = %v, %v; want nil and E-ROS-001", r, err)
			}
			return
		}
		if len(r.Members) == 0 {
			t.Fatal("parse admitted a roster with no members")
		}
	})
}
