// Package peerfile holds share-file and fetch-peer-file (tools.md §15,
// PFILE-1..6): a capsule hands another one file by handle, and the file
// never passes through either model's context.
//
//   - Plane is one session's exports.peer_files: the 32-byte minting key
//     (made by NewPlane, zeroed by Close when the session ends, which voids
//     every handle), share-file (ShareFile: the path checked and opened as a
//     redeem would, the peer's card fetched under capabilities.network.allow
//     for the audience, a handle minted) and Redeem, which door.PeerFiles
//     names: GET /resources/peer/<handle> runs PFILE-5's checks in order and
//     serves the file. Paths are walked one component at a time with
//     openat and O_NOFOLLOW (walk_unix.go): no symbolic link is followed
//     anywhere below the workdir.
//   - Fetch is fetch-peer-file: the peer checked against
//     capabilities.peer_fetch.allow before any connection, the body
//     streamed to a temporary file in peer-in/ while it is hashed, kept
//     under peer-in/<handle_id>-<basename> only when the hash is the etag's
//     (store_unix.go).
//
// Both tools' outgoing requests go through the one client NewClient builds.
// Records: share-file writes peer_handle_mint and fetch-peer-file
// peer_file_fetch after their tool_call; Redeem writes peer_handle_redeem
// under the session node through Config.Record, from the door's request
// goroutines. A token is never written: runtime/trace redacts any that
// reaches a record to <handle:<handle_id>>.
//
// # Example
//
//	plane, err := peerfile.NewPlane(peerfile.Config{SessionID: id, Workdir: wd, Root: "out",
//		MaxTTL: time.Hour, MaxBytes: 10 << 20, Network: allow, Record: write})
//	impl[tool.NameShareFile] = plane.ShareFile()
//	impl[tool.NameFetchPeerFile] = peerfile.Fetch(peerfile.FetchConfig{Workdir: wd, Allow: fetchAllow, Name: "reporter", URL: doorURL})
//	door.Config{PeerFiles: plane, …} // GET /resources/peer/<handle>
//	defer plane.Close()              // session end: every handle is void
package peerfile
