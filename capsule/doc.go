// Package capsule runs one capsule as a value: Serve takes a prepared
// launch and a bound listener and owns everything after — the session, the
// door, the running record, the announcement and the order in which they end
// (capsule.md SES-8). The mur CLI parses flags, calls Serve and maps its
// Result to an exit code; a test starts two capsules in one process the same
// way. Stop and StopFormation end a running session or formation from
// outside, as `mur stop` does (capsule.md CLI-13).
package capsule
