// Package artifact holds the tools that artifacts bring and the two that
// bring them: native tool artifacts (Native: a command run with the input
// on stdin, LOOP-10) and skill artifacts (Skill: skill.md as the result),
// pull-artifact, which installs one into the running session from the
// stores (PULL-1..6, pull.go, pullfind.go), and remove-artifact, which takes
// a pulled one out again (RMA-1..3, remove.go). A pull or a removal changes
// the session's registry at once (AddPulled, RemovePulled); the loop sends
// the new inventory from its next inference call.
//
// # Example
//
//	in := artifact.NewInstaller(artifact.InstallConfig{Grant: *install, Stores: stores,
//		LockDir: project, RuntimeDir: runtimeDir, Workdir: wd, Env: env, SessionID: id,
//		Registry: func() *tool.Registry { return reg }})
//	impl[tool.NamePullArtifact], impl[tool.NameRemoveArtifact] = in.Pull(), in.Remove()
package artifact
