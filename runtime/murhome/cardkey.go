package murhome

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CardKeyPath is the operator's Agent Card signing key: an Ed25519 private
// key, PKCS #8 PEM, mode 0600 (A2A §8.4). A standalone door signs its cards
// with it, so that a caller sharing the home can check a card came from it.
func CardKeyPath(home string) string { return filepath.Join(home, "keys", "card-ed25519.pem") }

// CardKey returns the operator's card signing key, making it on first use:
// written 0600 under a 0700 directory, created exclusively, so that two
// sessions starting at once end with one key.
func CardKey(home string) (ed25519.PrivateKey, error) {
	path := CardKeyPath(home)
	if key, err := readCardKey(path); !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("card key directory: %w", err)
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".card-key-*")
	if err != nil {
		return nil, fmt.Errorf("card key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err == nil {
		err = pem.Encode(tmp, &pem.Block{Type: "PRIVATE KEY", Bytes: der})
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("card key: %w", err)
		}
	} else {
		tmp.Close()
		return nil, fmt.Errorf("card key: %w", err)
	}
	// A hard link fails when the key exists: the first session's key wins.
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("card key: %w", err)
	}
	return readCardKey(path)
}

// CardPublicKey returns the public half of the operator's card key; it makes
// none (fs.ErrNotExist when there is none yet).
func CardPublicKey(home string) (ed25519.PublicKey, error) {
	key, err := readCardKey(CardKeyPath(home))
	if err != nil {
		return nil, err
	}
	return key.Public().(ed25519.PublicKey), nil
}

func readCardKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("card key %s: not a PEM private key", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("card key %s: %w", path, err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("card key %s: not an Ed25519 key", path)
	}
	return key, nil
}
