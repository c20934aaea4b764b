package spawn

import (
	"encoding/json"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/murmur-go/mur/runtime/wire"
)

// CompletionFile is completion.json, in the child's records directory
// (tools.md DLG-7).
const CompletionFile = "completion.json"

// cutDetail keeps detail within MaxDetail bytes, on a UTF-8 boundary.
func cutDetail(s string) string {
	if len(s) <= wire.MaxDetail {
		return s
	}
	s = s[:wire.MaxDetail]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// writeCompletion writes c to dir/completion.json, 0600, replacing what was
// there (temp file and rename, so a reader never sees half of one).
func writeCompletion(dir string, c wire.Completion) error {
	c.Detail = cutDetail(c.Detail)
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".completion-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, CompletionFile))
}

// ReadCompletion reads dir/completion.json; ok is false when there is none
// or it does not read as a completion (DLG-8: the parent then reports
// unknown, or crashed when there is no file at all).
func ReadCompletion(dir string) (c wire.Completion, exists, ok bool) {
	b, err := os.ReadFile(filepath.Join(dir, CompletionFile))
	if err != nil {
		return c, !os.IsNotExist(err), false
	}
	c, ok = wire.ParseCompletion(b)
	return c, true, ok
}
