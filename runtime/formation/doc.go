// Package formation is the member side of a formation (formations.md §10,
// §12): a `mur run` started by `mur run --roster` calls Join before staging.
// Join checks the formation environment (E-RUN-044, E-RUN-046, W-RUN-007),
// reads the channel's first line (fd MURMUR_FORMATION_CHANNEL: formation id,
// public key, launcher, member tokens), verifies every token, and watches the
// lifeline (fd MURMUR_FORMATION_LIFELINE) for EOF. It does no HTTP.
//
// # Example
//
//	m, err := formation.Join(os.Getenv)
//	if err != nil {
//		return err // a *diag.Diagnostic: refuse before any session directory
//	}
//	if m != nil {
//		for _, w := range m.Warnings { warn(w) } // W-RUN-007
//		defer m.Close()
//		go func() {
//			<-m.Ended() // lifeline EOF: the formation has ended (LIFE-3)
//			// write formation_ended, print formation.LifelineClosedNotice,
//			// m.ArmExitTimer(os.Exit), wind down as on a first SIGTERM
//		}()
//	}
//	c, err := m.Lookup(ctx, "worker") // call-member: URL, session, token
//
// # Goroutines
//
// A launcher-started member runs two goroutines, both stopped and waited for
// by Close: one reads the channel after its first line (address lines, CHAN-3)
// and one reads the lifeline until EOF (LIFE-1). Member is safe for
// concurrent use.
package formation
