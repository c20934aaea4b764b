//go:build !linux && !darwin

package peerfile

import "github.com/murmur-go/mur/runtime/peerplane"

// openBelow needs openat and O_NOFOLLOW walks; on other systems the plane
// serves nothing rather than serve through a weaker check.
func openBelow(openatFunc, string, []string, []string) (*opened, *refused) {
	return nil, &refused{peerplane.IOError(), "the peer plane is not supported on this system"}
}

// openatFunc is openat(2), which these systems are not given.
type openatFunc = func(dir int, name string, flags int, mode uint32) (int, error)

var sysOpenat openatFunc

func restat(*opened) (fileID, error) { return fileID{}, nil }
