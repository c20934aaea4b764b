package door

import (
	"net/http"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// checkVersion is ORD-1 step 8 (RPC-3): the one A2A-Version header line,
// trimmed, must be "1.0" or "1.0.<digits>". Absent or empty (A2A reads that
// as 0.3), any other value, or several header lines are -32009. With no
// header line at all, an A2A-Version query parameter is read instead [OURS].
func checkVersion(r *http.Request) error {
	vals, ok := r.Header[http.CanonicalHeaderKey(a2a.HeaderVersion)]
	if !ok {
		vals = r.URL.Query()[a2a.HeaderVersion]
	}
	if len(vals) == 1 && servedVersion(strings.TrimSpace(vals[0])) {
		return nil
	}
	return a2a.VersionNotSupported(strings.Join(vals, ", "))
}

// servedVersion reports whether v is 1.0 or 1.0.<digits>.
func servedVersion(v string) bool {
	if v == a2a.ProtocolVersion {
		return true
	}
	patch, ok := strings.CutPrefix(v, a2a.ProtocolVersion+".")
	if !ok || patch == "" {
		return false
	}
	for i := 0; i < len(patch); i++ {
		if patch[i] < '0' || patch[i] > '9' {
			return false
		}
	}
	return true
}
