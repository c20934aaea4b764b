package launcher

import (
	"fmt"
	"strings"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/diag"
)

// RosterBlock renders `mur doctor`'s Roster block (DOC-3) for the roster at
// path: the admitted members and reachability with one warning line each,
// or the refusal as one ✗ line. Every line but the first is indented two
// spaces; the block ends with a newline.
func RosterBlock(path string, f *roster.Formation, warns []*diag.Diagnostic, refusal *diag.Diagnostic) string {
	var b strings.Builder
	b.WriteString("Roster\n")
	fmt.Fprintf(&b, "  file: %s\n", path)
	if refusal != nil {
		// A message of several lines (E-ROS-007) keeps its lines under the ✗;
		// its code comes first, so the block is the one place it is shown.
		fmt.Fprintf(&b, "  ✗  error[%s]: %s\n", refusal.Code, strings.ReplaceAll(refusal.Msg, "\n", "\n   "))
		return b.String()
	}
	nameW, capW := 0, 0
	for _, m := range f.Members {
		nameW = max(nameW, len(m.Name))
		capW = max(capW, len(m.Capsule)+1+len(m.Version))
	}
	for _, m := range f.Members {
		entry, peers, door := "", "refuses peers", "public door"
		if m.Entry {
			entry = "entry"
		}
		if m.Facts.PeerTasks {
			peers = "serves peers"
		}
		if m.Facts.Authenticated {
			door = "authenticated door"
		}
		fmt.Fprintf(&b, "  %-*s   %-*s   %-5s   %-13s   %s\n", nameW, m.Name, capW, m.Capsule+"@"+m.Version, entry, peers, door)
	}
	label := "reachability"
	if f.Roster.All {
		label = "reachability (all)"
	}
	if len(f.Edges) == 0 {
		b.WriteString("  reachability: none\n")
	} else {
		es := make([]string, len(f.Edges))
		for i, e := range f.Edges {
			es[i] = e.From + " → " + e.To
		}
		fmt.Fprintf(&b, "  %s: %s\n", label, strings.Join(es, ", "))
	}
	for _, w := range warns {
		b.WriteString("  " + w.Render())
	}
	return b.String()
}
