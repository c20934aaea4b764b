package spawn

import (
	"encoding/json"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/murmur-go/mur/runtime/atomicfile"
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
// there atomically, so a reader never sees half of one.
func writeCompletion(dir string, c wire.Completion) error {
	c.Detail = cutDetail(c.Detail)
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, CompletionFile), append(b, '\n'), 0o600)
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
