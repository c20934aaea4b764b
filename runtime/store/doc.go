// Package store holds installed artifacts (capsule.md §2): the project store
// <project>/.murmur/artifacts/ and the global store $MURMUR_HOME/artifacts/,
// each artifact at <store>/<name>/<version>/{tree/,meta.json}, bound by the
// sha256 of a canonical tar (STORE-4) recomputed at every resolution; and
// murmur.lock (STORE-5). It installs (CLI-6), resolves (STORE-3, STORE-7),
// lists (CLI-7) and checks a manifest's artifacts (MAN-4 step 8).
//
// # Example
//
//	project, _ := store.FindProject(cwd)
//	home, _ := murhome.Home(os.Getenv) // $MURMUR_HOME, default ~/.murmur
//	ss := store.Stores{ProjectDir: project, Home: home}
//	r, err := ss.Resolve("coder", "1.2.0")
//	switch {
//	case errors.Is(err, store.ErrNotInstalled): // E-RUN-008 / E-ROS-007
//	case errors.Is(err, store.ErrHashMismatch): // err is E-REG-002
//	case err != nil:                            // E-IO-001 (ErrManifestUnreadable)
//	}
//	fmt.Println(r.TreeDir, r.SHA256)
package store
