package manifest

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// AllowEntry is one parsed network allow entry (capsule.md §1.3): a bare
// host, host:port, or http(s)://host[:port].
type AllowEntry struct {
	Raw    string // as written
	Scheme string // "http" or "https" for a URL entry, "" otherwise
	Host   string // lower-case, without brackets
	Port   int    // 0 for a bare host; the scheme's default for a URL without one
}

// AllowList is capabilities.network.allow (or peer_fetch.allow), in manifest
// order.
type AllowList []AllowEntry

// ParseAllowEntry parses one allow entry. The error's text is E-CAP-001's
// <reason>.
func ParseAllowEntry(s string) (AllowEntry, error) {
	e := AllowEntry{Raw: s}
	if strings.TrimSpace(s) == "" {
		return e, fmt.Errorf("the entry is empty")
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return e, fmt.Errorf("the entry contains whitespace")
	}
	if i := strings.Index(s, "://"); i >= 0 {
		return parseAllowURL(s, i)
	}
	if strings.ContainsAny(s, "/?#@") {
		return e, fmt.Errorf("a path, query, fragment or user is only valid in a URL, and URLs take no path")
	}
	host, port, err := splitAllowHostPort(s)
	if err != nil {
		return e, err
	}
	e.Host, e.Port = host, port
	return e, nil
}

func parseAllowURL(s string, i int) (AllowEntry, error) {
	e := AllowEntry{Raw: s}
	scheme := strings.ToLower(s[:i])
	if scheme != "http" && scheme != "https" {
		return e, fmt.Errorf("scheme '%s' is not http or https", s[:i])
	}
	u, err := url.Parse(s)
	if err != nil {
		return e, fmt.Errorf("not a URL: %v", err)
	}
	switch {
	case u.User != nil:
		return e, fmt.Errorf("a URL entry takes no user information")
	case u.Path != "" && u.Path != "/":
		return e, fmt.Errorf("a URL entry takes no path")
	case u.RawQuery != "" || u.ForceQuery:
		return e, fmt.Errorf("a URL entry takes no query")
	case u.Fragment != "" || strings.Contains(s, "#"):
		return e, fmt.Errorf("a URL entry takes no fragment")
	}
	host, port, err := splitAllowHostPort(u.Host)
	if err != nil {
		return e, err
	}
	if port == 0 {
		port = defaultPort(scheme)
	}
	e.Scheme, e.Host, e.Port = scheme, host, port
	return e, nil
}

// splitAllowHostPort splits "host", "host:port", "[v6]" or "[v6]:port".
func splitAllowHostPort(s string) (string, int, error) {
	if s == "" {
		return "", 0, fmt.Errorf("the host is empty")
	}
	host, portText := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.Index(s, "]")
		if end < 0 {
			return "", 0, fmt.Errorf("unclosed '[' in the host")
		}
		host, portText = s[1:end], s[end+1:]
		if portText != "" {
			var ok bool
			if portText, ok = strings.CutPrefix(portText, ":"); !ok {
				return "", 0, fmt.Errorf("unexpected text after ']'")
			}
		}
		if net.ParseIP(host) == nil {
			return "", 0, fmt.Errorf("'%s' is not an IPv6 address", host)
		}
	case strings.Count(s, ":") == 1:
		host, portText, _ = strings.Cut(s, ":")
	case strings.Count(s, ":") > 1:
		if net.ParseIP(s) == nil {
			return "", 0, fmt.Errorf("write an IPv6 address in brackets")
		}
	}
	if host == "" {
		return "", 0, fmt.Errorf("the host is empty")
	}
	if !validHost(host) {
		return "", 0, fmt.Errorf("'%s' is not a host name or IP address", host)
	}
	port := 0
	if portText != "" || strings.HasSuffix(s, ":") {
		n, err := strconv.Atoi(portText)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("port '%s' is not a number from 1 to 65535", portText)
		}
		port = n
	}
	return strings.ToLower(host), port, nil
}

func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return false
			}
		}
	}
	return true
}

func defaultPort(scheme string) int {
	if scheme == "https" {
		return 443
	}
	return 80
}

// Allows reports whether a request to rawURL is within the list (capsule.md
// §1.3, formations.md CRED-2): a bare host matches every port and scheme,
// host:port that port on any scheme, a URL entry its scheme and port
// (default 80/443). The host "localhost" in an entry also covers 127.0.0.1
// and ::1. An unparsable URL, or one that is not http(s), is never allowed.
func (a AllowList) Allows(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	port := defaultPort(scheme)
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		port = n
	}
	for _, e := range a {
		if !hostMatches(e.Host, host) {
			continue
		}
		switch {
		case e.Port == 0:
			return true
		case e.Scheme == "" && e.Port == port:
			return true
		case e.Scheme == scheme && e.Port == port:
			return true
		}
	}
	return false
}

func hostMatches(entry, host string) bool {
	entry = strings.TrimSuffix(entry, ".")
	host = strings.TrimSuffix(host, ".")
	if entry == host {
		return true
	}
	if entry == "localhost" {
		return host == "127.0.0.1" || host == "::1"
	}
	return false
}

// ReachesDoors reports whether a reaches a loopback http door at any port:
// a bare "localhost" or "127.0.0.1" entry (formations.md CRED-2), which a
// member needs to call its callees.
func (a AllowList) ReachesDoors() bool {
	return a.Allows("http://127.0.0.1:1") && a.Allows("http://127.0.0.1:65535")
}
