package confine

import "syscall"

// Spec is what the sandbox hands the trampoline, through an inherited memory
// file (never argv or the environment): the command, the inherited fds of
// the status pipe and the Landlock ruleset, the seccomp filter, the paths to
// hold read-only in the process's own mount namespace and, for a sealed
// start, the sealed stage's part (a JSON-encoded Sealed). It is encoded by
// Encode in a form this package reads with the syscall package alone.
type Spec struct {
	Path      string
	Args      []string
	StatusFD  int
	RulesetFD int
	Seccomp   []syscall.SockFilter
	Protect   []string
	Sealed    []byte
}

const specMagic = "mur-confine-1\n"

// Encode is the spec as the trampoline reads it: the magic, then each field
// in order, a number as 4 bytes little-endian, a string or a byte slice as
// its length and its bytes, a list as its length and its items, a seccomp
// instruction as its code (2 bytes), jt, jf and k (4 bytes).
func (s *Spec) Encode() []byte {
	b := []byte(specMagic)
	num := func(n int) { b = append(b, byte(n), byte(n>>8), byte(n>>16), byte(n>>24)) }
	str := func(v string) { num(len(v)); b = append(b, v...) }
	str(s.Path)
	num(len(s.Args))
	for _, a := range s.Args {
		str(a)
	}
	num(s.StatusFD)
	num(s.RulesetFD)
	num(len(s.Seccomp))
	for _, f := range s.Seccomp {
		b = append(b, byte(f.Code), byte(f.Code>>8), f.Jt, f.Jf)
		num(int(f.K))
	}
	num(len(s.Protect))
	for _, p := range s.Protect {
		str(p)
	}
	str(string(s.Sealed))
	return b
}

// decodeSpec reads what Encode wrote; ok is false for anything else.
func decodeSpec(b []byte) (s Spec, ok bool) {
	if len(b) < len(specMagic) || string(b[:len(specMagic)]) != specMagic {
		return s, false
	}
	b = b[len(specMagic):]
	bad := false
	num := func() int {
		if len(b) < 4 {
			bad = true
			return 0
		}
		n := int(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
		b = b[4:]
		return n
	}
	str := func() string {
		n := num()
		if n > len(b) {
			bad = true
			return ""
		}
		v := string(b[:n])
		b = b[n:]
		return v
	}
	s.Path = str()
	for n := num(); n > 0 && !bad; n-- {
		s.Args = append(s.Args, str())
	}
	s.StatusFD, s.RulesetFD = num(), num()
	for n := num(); n > 0 && !bad; n-- {
		if len(b) < 4 {
			bad = true
			break
		}
		f := syscall.SockFilter{Code: uint16(b[0]) | uint16(b[1])<<8, Jt: b[2], Jf: b[3]}
		b = b[4:]
		f.K = uint32(num())
		s.Seccomp = append(s.Seccomp, f)
	}
	for n := num(); n > 0 && !bad; n-- {
		s.Protect = append(s.Protect, str())
	}
	if sealed := str(); sealed != "" {
		s.Sealed = []byte(sealed)
	}
	return s, !bad && len(b) == 0
}

// Report is what the trampoline writes to the status pipe when a step
// fails ("<errno> <step>\n<text>"); an exec that succeeds closes the pipe
// unwritten.
type Report struct {
	Step  string
	Errno int
	Text  string
}

// ParseReport reads what a failed trampoline wrote.
func ParseReport(b []byte) (Report, bool) {
	var r Report
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		r.Errno = r.Errno*10 + int(b[i]-'0')
		i++
	}
	if i == 0 || i >= len(b) || b[i] != ' ' {
		return r, false
	}
	rest := string(b[i+1:])
	for j := 0; j < len(rest); j++ {
		if rest[j] == '\n' {
			r.Step, r.Text = rest[:j], rest[j+1:]
			return r, true
		}
	}
	return r, false
}

func (r Report) encode() []byte {
	return append(append(append(itoa(nil, r.Errno), ' '), r.Step+"\n"...), r.Text...)
}

func itoa(b []byte, n int) []byte {
	if n >= 10 {
		b = itoa(b, n/10)
	}
	return append(b, byte('0'+n%10))
}
