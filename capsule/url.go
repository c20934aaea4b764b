package capsule

import (
	"net"
	"strconv"
)

// DoorURL is DOOR-1's form of the door's address: http://127.0.0.1:<port>,
// or under a bind address other than localhost the bound address (IPv6 in
// brackets), so that every report of it reaches the door.
func DoorURL(bind string, addr *net.TCPAddr) string {
	host := "127.0.0.1"
	if ip := net.ParseIP(bind); ip != nil {
		host = ip.String()
	} else if bind == "localhost" && addr.IP != nil && !addr.IP.IsUnspecified() {
		host = addr.IP.String()
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(addr.Port))
}

// IsLoopback reports whether a bind address is loopback (localhost or a
// loopback IP): a door bound elsewhere needs authentication.
func IsLoopback(addr string) bool {
	if addr == "localhost" {
		return true
	}
	ip := net.ParseIP(addr)
	return ip != nil && ip.IsLoopback()
}
