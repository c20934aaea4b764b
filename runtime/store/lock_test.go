package store

import (
	"fmt"
	"sync"
	"testing"
)

// TestEditLockSerialises: concurrent EditLocks of one project each add their
// own entry and none is lost (flock conflicts between two
// opens in one process as between two processes).
func TestEditLockSerialises(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n) // every editor reports at most once
	for i := range n {
		wg.Go(func() {
			errs <- EditLock(dir, func(cur *Lock) (*Lock, error) {
				if cur == nil {
					cur = &Lock{LockVersion: LockVersion}
				}
				cur.Upsert(LockEntry{Name: fmt.Sprintf("a%d", i), ResolvedVersion: "1.0.0", Runtime: "tool",
					SHA256: fmt.Sprintf("%064d", i), Origin: OriginOperator})
				return cur, nil
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	l, err := ReadLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Artifacts) != n {
		t.Errorf("murmur.lock holds %d entries, want %d", len(l.Artifacts), n)
	}
}

// TestEditLockWritesNothing: an edit returning nil, or an error, leaves the
// file as it was (and absent stays absent).
func TestEditLockWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := EditLock(dir, func(*Lock) (*Lock, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if l, err := ReadLock(dir); l != nil || err != nil {
		t.Errorf("ReadLock = %+v, %v; want no lock", l, err)
	}
	boom := fmt.Errorf("boom")
	if err := EditLock(dir, func(*Lock) (*Lock, error) { return &Lock{}, boom }); err != boom {
		t.Errorf("EditLock error = %v, want %v", err, boom)
	}
	if l, _ := ReadLock(dir); l != nil {
		t.Errorf("a failed edit wrote %+v", l)
	}
}
