package confine

import (
	"reflect"
	"syscall"
	"testing"
)

// A spec reads back as it was written, and anything else (a cut one, a
// foreign one) is refused; a failure report reads back with its errno,
// step and text.
func TestSpecAndReportRoundTrip(t *testing.T) {
	s := Spec{Path: "/bin/sh", Args: []string{"sh", "-c", "echo é\x00"}, StatusFD: 5, RulesetFD: 6,
		Seccomp: []syscall.SockFilter{{Code: 0x20, Jt: 1, Jf: 2, K: 0xc000003e}, {Code: 6, K: 0x7fff0000}},
		Protect: []string{"/p/murmur.lock"}, Sealed: []byte(`{"root":"/r"}`)}
	b := s.Encode()
	got, ok := decodeSpec(b)
	if !ok || !reflect.DeepEqual(got, s) {
		t.Errorf("decodeSpec(Encode(s)) = %+v, %v; want %+v", got, ok, s)
	}
	for _, bad := range [][]byte{b[:len(b)-1], append(b, 0), []byte("{}")} {
		if _, ok := decodeSpec(bad); ok {
			t.Errorf("decodeSpec(%q) is ok, want refused", bad)
		}
	}
	r := Report{Step: "read-only /p", Errno: int(syscall.EROFS), Text: "read-only file system\nmore"}
	if got, ok := ParseReport(r.encode()); !ok || got != r {
		t.Errorf("ParseReport = %+v, %v; want %+v", got, ok, r)
	}
}
