package session

import (
	"fmt"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/tool/peerfile"
	"github.com/murmur-go/mur/runtime/trace"
)

// buildPeerFiles builds share-file and the peer plane for
// exports.peer_files, and fetch-peer-file for capabilities.peer_fetch
// (tools.md PFILE-1: neither implies the other). The plane's key is minted
// here, at launch, and voided when the session ends (end, PFILE-3). Both
// tools send through one client (peerfile.NewClient).
func (s *Session) buildPeerFiles() map[string]tool.Tool {
	m := s.m
	out := map[string]tool.Tool{}
	client := peerfile.NewClient()
	if pf := m.Exports.PeerFiles; pf != nil {
		p, err := peerfile.NewPlane(peerfile.Config{
			SessionID: s.id, Workdir: s.workdir, Root: pf.Root, MaxTTL: pf.MaxTTL, MaxBytes: pf.MaxBytes,
			Network: m.Capabilities.Network.Allow, Now: s.now, Client: client,
			// The listener's records hang from the session node; the trace
			// writer exists by the time the door serves.
			Record:     func(r trace.Record) { _, _ = s.tr.Write(r) },
			Generation: s.generation,
		})
		if err != nil {
			s.bootstrap(fmt.Sprintf("share-file is unavailable: %v\n", err))
		} else {
			s.peer = p
			out[tool.NameShareFile] = p.ShareFile()
		}
	}
	if pf := m.Capabilities.PeerFetch; pf != nil {
		out[tool.NameFetchPeerFile] = peerfile.Fetch(peerfile.FetchConfig{
			Workdir: s.workdir, Allow: pf.Allow, Name: m.Name, URL: s.url, Client: client, MaxBytes: pf.MaxBytes,
		})
	}
	return out
}

// PeerFiles is the session's peer plane, which the door's GET
// /resources/peer/<handle> dispatches to; nil without exports.peer_files.
func (s *Session) PeerFiles() *peerfile.Plane { return s.peer }

// generation counts the tasks of this runtime process that reached a
// terminal state (x-murmur-generation).
func (s *Session) generation() uint64 {
	var n uint64
	for st, c := range s.reg.Counts() {
		switch st {
		case a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected:
			n += uint64(c)
		}
	}
	return n
}
