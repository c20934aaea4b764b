package a2a

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"
)

// Id prefixes (door.md identifier formats, capsule.md preamble).
const (
	PrefixSession    = "ses_"
	PrefixTask       = "tsk_"
	PrefixContext    = "ctx_"
	PrefixFormation  = "frm_"
	PrefixEvent      = "evt_"
	PrefixWork       = "wrk_"
	PrefixMemberCall = "mcl_"
	PrefixDelegation = "dlg_" // a delegation (tools.md DLG-4)
	PrefixMessage    = "msg_"
)

var idMu sync.Mutex // guards lastMS and seq: ids minted in one process sort in mint order
var lastMS int64    // the millisecond of the last id minted
var seq uint16      // the 12-bit counter within lastMS (RFC 9562 method 1)

// NewID returns prefix + the 32 lowercase hex digits of a fresh UUIDv7.
// Ids minted by one process sort in the order they were minted. Safe for
// concurrent use.
func NewID(prefix string) string {
	return prefix + newUUIDv7Hex(time.Now())
}

func newUUIDv7Hex(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	ms := now.UnixMilli()
	idMu.Lock()
	if ms <= lastMS {
		ms = lastMS
		seq++
		if seq > 0x0fff { // counter exhausted within this ms: borrow the next ms
			ms++
			seq = 0
		}
	} else {
		seq = binary.BigEndian.Uint16(b[6:8]) & 0x01ff // random start, room to count up
	}
	lastMS = ms
	s := seq
	idMu.Unlock()
	b[0] = byte(ms >> 40)
	b[1] = byte(ms >> 32)
	b[2] = byte(ms >> 24)
	b[3] = byte(ms >> 16)
	b[4] = byte(ms >> 8)
	b[5] = byte(ms)
	b[6] = 0x70 | byte(s>>8)&0x0f
	b[7] = byte(s)
	b[8] = 0x80 | b[8]&0x3f
	return hex.EncodeToString(b[:])
}

// ErrBadID is returned by IDTime for a value that is not prefix + 32 lowercase hex.
var ErrBadID = errors.New("not an id of the form <prefix><32 lowercase hex>")

// IDTime returns the time a UUIDv7-based id was minted (its 48-bit ms field).
func IDTime(id, prefix string) (time.Time, error) {
	h, ok := strings.CutPrefix(id, prefix)
	if !ok || !IsHex32(h) {
		return time.Time{}, ErrBadID
	}
	raw, _ := hex.DecodeString(h[:12])
	var ms int64
	for _, c := range raw {
		ms = ms<<8 | int64(c)
	}
	return time.UnixMilli(ms), nil
}

// IsHex32 reports whether s is exactly 32 lowercase hex digits.
func IsHex32(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ValidID reports whether id is prefix followed by 32 lowercase hex digits.
func ValidID(id, prefix string) bool {
	h, ok := strings.CutPrefix(id, prefix)
	return ok && IsHex32(h)
}
