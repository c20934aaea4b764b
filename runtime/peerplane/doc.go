// Package peerplane is the peer plane's shared vocabulary (tools.md PFILE):
// the handle format and the seam between the door's route
// GET /resources/peer/<handle> and the runtime that answers it.
//
//   - The handle (PFILE-3): Mint and Parse, the MAC over the
//     domain-separated input (HMAC-SHA256, compared in constant time by
//     Handle.Verify), ID (the handle_id) and Redact, which replaces every
//     token in a text with <handle:<handle_id>> so that no record or log
//     ever holds one (PFILE-6).
//   - The seam (PFILE-5): Refusal, each answer that is not a file with its
//     HTTP status, code and sentence, and File, the open file a redeem
//     serves. The door renders both; the runtime decides them.
//
// It imports the standard library only, so the door (which never imports
// the runtime, STYLE.md §2) and the runtime both build on it.
//
// # Example
//
//	key := peerplane.NewKey()
//	tok, _ := peerplane.Mint(key, peerplane.Payload{Iss: sesID, P: "report.md", Exp: exp}, "reporter@127.0.0.1:41234")
//	h, err := peerplane.Parse(tok) // *Refusal malformed_handle
//	if err == nil && h.Verify(key, "reporter@127.0.0.1:41234") { … }
//	log := peerplane.Redact("sent " + tok) // "sent <handle:3f2a91c40b7e5d68>"
package peerplane
