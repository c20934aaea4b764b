package view

// MemberSession is one member session of a formation, as `mur trace show <frm_id>`
// reads them (FCLI-8).
type MemberSession struct {
	SessionID  string
	RecordsDir string
	Entry      bool
	Running    bool // its running record names a live process
}

// Members lists formation frm's member sessions under $MURMUR_HOME home, as
// the view finds them (running records, the formation's peer directories,
// the entry's records group); live is true while anything of it may still
// run. An unreadable running-records directory is E-RUN-028.
func Members(home, frm string) (members []MemberSession, live bool, err error) {
	found, _, live, err := newFinder(home, KindFormation, frm).find()
	if err != nil {
		return nil, false, err
	}
	for _, f := range found {
		members = append(members, MemberSession{SessionID: f.id, RecordsDir: f.recordsDir, Entry: f.entry, Running: f.rec != nil})
	}
	return members, live, nil
}
