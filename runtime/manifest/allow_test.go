package manifest

import "testing"

func allowList(t *testing.T, entries ...string) AllowList {
	t.Helper()
	var a AllowList
	for _, s := range entries {
		e, err := ParseAllowEntry(s)
		if err != nil {
			t.Fatalf("ParseAllowEntry(%q) error = %v", s, err)
		}
		a = append(a, e)
	}
	return a
}

// TestAllows is capsule.md §1.3's matching and formations.md CRED-2's examples.
func TestAllows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		entry, url string
		want       bool
	}{
		// CRED-2: a member's door is http://127.0.0.1:<launch-chosen port>.
		{"localhost", "http://127.0.0.1:41234", true},
		{"127.0.0.1", "http://127.0.0.1:41234", true},
		{"http://localhost", "http://127.0.0.1:41234", false},
		{"localhost:8080", "http://127.0.0.1:41234", false},
		{"http://127.0.0.1:8080", "http://127.0.0.1:41234", false},
		{"localhost", "http://[::1]:9000/a2a", true},
		{"localhost", "https://localhost/x", true},
		// a bare host matches every port and scheme
		{"api.example.com", "https://api.example.com/v1", true},
		{"api.example.com", "http://api.example.com:8080", true},
		{"api.example.com", "https://other.example.com", false},
		{"API.Example.com", "https://api.example.COM", true},
		// host:port matches that port on any scheme
		{"api.example.com:8443", "https://api.example.com:8443/x", true},
		{"api.example.com:8443", "http://api.example.com:8443", true},
		{"api.example.com:443", "https://api.example.com", true},
		{"api.example.com:8443", "https://api.example.com", false},
		// a URL matches its scheme and port, 80/443 by default
		{"https://api.github.com", "https://api.github.com/repos", true},
		{"https://api.github.com", "https://api.github.com:443/", true},
		{"https://api.github.com", "http://api.github.com", false},
		{"https://api.github.com", "https://api.github.com:8443", false},
		{"http://localhost", "http://127.0.0.1/", true},
		{"http://localhost:3000", "http://localhost:3000/", true},
		{"[::1]:9000", "http://[::1]:9000", true},
		// never allowed
		{"example.com", "ftp://example.com", false},
		{"example.com", "not a url", false},
	}
	for _, c := range cases {
		if got := allowList(t, c.entry).Allows(c.url); got != c.want {
			t.Errorf("AllowList{%q}.Allows(%q) = %v, want %v", c.entry, c.url, got, c.want)
		}
	}
	if (AllowList{}).Allows("http://127.0.0.1:1") {
		t.Error("an empty list allows a request")
	}
}

// TestParseAllowEntry covers the E-CAP-001 reasons (capsule.md §1.3).
func TestParseAllowEntry(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"":                        "the entry is empty",
		"example.com/path":        "a path, query, fragment or user is only valid in a URL, and URLs take no path",
		"https://example.com/a":   "a URL entry takes no path",
		"https://example.com?q=1": "a URL entry takes no query",
		"https://example.com#f":   "a URL entry takes no fragment",
		"https://u@example.com":   "a URL entry takes no user information",
		"ws://example.com":        "scheme 'ws' is not http or https",
		"example.com:0":           "port '0' is not a number from 1 to 65535",
		"example.com:":            "port '' is not a number from 1 to 65535",
		"exa mple.com":            "the entry contains whitespace",
		"bad!host":                "'bad!host' is not a host name or IP address",
		"fe80::1::2":              "write an IPv6 address in brackets",
		"[zz]:80":                 "'zz' is not an IPv6 address",
	}
	for in, want := range bad {
		_, err := ParseAllowEntry(in)
		if err == nil || err.Error() != want {
			t.Errorf("ParseAllowEntry(%q) error = %v, want %q", in, err, want)
		}
	}
	e, err := ParseAllowEntry("https://API.example.com:8443/")
	if err != nil || e != (AllowEntry{Raw: "https://API.example.com:8443/", Scheme: "https", Host: "api.example.com", Port: 8443}) {
		t.Errorf("ParseAllowEntry(url) = %+v, %v", e, err)
	}
}
