// Package docs holds mur's user-facing reference, as Markdown beside this
// file: manifest.md (every murmur.yaml key), roster.md (every roster.yaml
// key), view.md (mur view's flags, --json line, HTTP endpoints and JSON
// fields; launcher/view's TestWireReference keeps it true), json.md (every
// command's --json document; cmd/mur's TestJSONReference keeps it true),
// door.md (the door's load bounds: connections, body budget, deadlines),
// delegation.md (a sub-capsule's referee, process, environment,
// completion.json and records),
// metrics.md (every /metrics family; TestMetricsReference scrapes a door),
// telemetry.md (OpenTelemetry export, resource and spans),
// containment.md (what a tool process can and cannot reach, class by class,
// and the tests that hold it) and
// requirements.md (every requirement ID the code cites, with a one-line
// summary). It has no code; its tests keep the reference true:
//
//   - TestManifestReference and TestRosterReference compare the keys the
//     reference documents with the keys the decoders take
//     (manifest.Keys, roster.Keys), and the diagnostic codes it names with
//     those runtime/diag declares;
//   - TestDoorReference checks door.md's defaults against the door's;
//   - TestDelegationReference checks delegation.md's tables against
//     wire.Completion and the delegation record types;
//   - TestRequirementIndex compares the index with the requirement IDs
//     cited in the tree's Go files.
//
// Each failure says what to add to or remove from which file.
package docs
