package murhome

import (
	"bytes"
	"os"
	"sync"
	"testing"
)

// The card key is made once, 0600, and every later call (and every caller
// racing the first) reads the same key.
func TestCardKey(t *testing.T) {
	home := t.TempDir()
	if _, err := CardPublicKey(home); !os.IsNotExist(err) {
		t.Fatalf("CardPublicKey before any key = %v, want not-exist", err)
	}
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := CardKey(home)
			if err != nil {
				t.Error(err)
				return
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if !bytes.Equal(k, keys[0]) {
			t.Fatal("racing CardKey calls made different keys")
		}
	}
	fi, err := os.Stat(CardKeyPath(home))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v, %v; want 0600", fi.Mode(), err)
	}
	pub, err := CardPublicKey(home)
	if err != nil || !bytes.Equal(pub, keys[0][32:]) {
		t.Errorf("CardPublicKey = %x, %v", pub, err)
	}
}
