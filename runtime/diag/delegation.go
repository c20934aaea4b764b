package diag

// ERUN020 is delegation's launch refusal (tools.md DLG-6).
const ERUN020 Code = "E-RUN-020"

// hintSpawner is E-RUN-020's hint (spec README.md).
const hintSpawner = "unset it to run this capsule directly"

// RunSpawnerBad is E-RUN-020 for a MURMUR_SPAWNER that is not a spawner
// handle (tools.md DLG-6).
func RunSpawnerBad(reason string) *Diagnostic {
	return mk(ERUN020, "MURMUR_SPAWNER does not carry a readable spawner handle: "+reason, hintSpawner)
}

// RunSpawnerLifelineBad is E-RUN-020 for an unusable MURMUR_SPAWNER_LIFELINE
// (tools.md DLG-6).
func RunSpawnerLifelineBad(reason string) *Diagnostic {
	return mk(ERUN020, "MURMUR_SPAWNER_LIFELINE does not carry this session's spawner lifeline: "+reason, hintSpawner)
}
