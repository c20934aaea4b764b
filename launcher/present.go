package launcher

import (
	"fmt"
	"strings"

	"github.com/murmur-go/mur/runtime/wire"
)

// printFormation writes the formation line to stdout (--json) or the block to
// stderr (FCLI-1, FCLI-2), once every peer is ready and before the entry starts.
func (l *launch) printFormation(peers []*proc, ready map[string]*wire.Ready) {
	fl := wire.Formation{Entry: l.f.Entry().Name, FormationID: l.creds.formationID, Peers: []wire.Peer{}}
	for _, p := range peers {
		r := ready[p.m.Name]
		fl.Peers = append(fl.Peers, wire.Peer{Name: p.m.Name, PID: p.pid, SessionID: r.SessionID, URL: r.URL, Workdir: p.dir})
	}
	if l.cfg.JSON {
		_, _ = l.cfg.Stdout.Write(fl.Line())
		return
	}
	l.stderr.write([]byte(formationBlock(fl, peers)))
}

// formationBlock is FCLI-2's human block.
func formationBlock(fl wire.Formation, peers []*proc) string {
	width := len(fl.Entry)
	for _, p := range fl.Peers {
		width = max(width, len(p.Name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "formation: %s\n", fl.FormationID)
	indent := strings.Repeat(" ", len("  peer   ")+width+2)
	for i, p := range fl.Peers {
		m := peers[i].m
		fmt.Fprintf(&b, "  peer   %-*s  %s@%s  pid %d  %s  %s\n", width, p.Name, m.Capsule, m.Version, p.PID, p.SessionID, p.URL)
		fmt.Fprintf(&b, "%sworkdir %s\n", indent, p.Workdir)
	}
	fmt.Fprintf(&b, "  entry  %-*s  starting\n", width, fl.Entry)
	return b.String()
}
