// Package hook runs a session's policy hooks: one native process per hook
// entry, started once per session under the session's containment with only
// its entry's grant, spoken to in JSON lines on its stdin and stdout. At a
// decision point (on-tool-call, on-shell) a call runs only on a clean "none";
// a denial, an exit, a timeout, unreadable output or another arm refuses it.
// Observers see a call after it ran and cannot change it. docs/hooks.md is
// the user's reference for the protocol.
package hook
