package kubetest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the mur binary murBinary built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	if murBin != "" {
		os.RemoveAll(filepath.Dir(murBin))
	}
	os.Exit(code)
}
