//go:build linux || darwin

package peerfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"github.com/murmur-go/mur/runtime/peerplane"
)

// openatFunc is openat(2): a directory descriptor, a name below it, flags
// and mode, giving a descriptor.
type openatFunc = func(dir int, name string, flags int, mode uint32) (int, error)

// sysOpenat is the kernel's openat.
var sysOpenat openatFunc = unix.Openat

// openBelow opens workdir/root.../rel... one component at a time, each
// directory with O_NOFOLLOW|O_DIRECTORY relative to the one before
// (openat), the last with O_NOFOLLOW through openat, and confirms from its descriptor that
// it is a regular file. A symbolic link anywhere on the way is refused: on
// the way to the root as outside_root (the root no longer resolves to the
// directory declared), below it as symlink_refused (PFILE-5).
func openBelow(openat openatFunc, workdir string, root, rel []string) (*opened, *refused) {
	dir, err := unix.Open(workdir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &refused{peerplane.IOError(), "the workdir could not be opened: " + err.Error()}
	}
	defer func() { _ = unix.Close(dir) }()
	step := func(name string, link *peerplane.Refusal, what string) *refused {
		next, rf := openDir(dir, name, link, what)
		if rf != nil {
			return rf
		}
		_ = unix.Close(dir)
		dir = next
		return nil
	}
	for _, c := range root {
		if rf := step(c, peerplane.OutsideRoot(), "the export root"); rf != nil {
			return nil, rf
		}
	}
	for _, c := range rel[:len(rel)-1] {
		if rf := step(c, peerplane.SymlinkRefused(), "a directory of the path"); rf != nil {
			return nil, rf
		}
	}
	return openRegular(openat, dir, rel[len(rel)-1])
}

// openDir opens the directory name below dir without following a link.
func openDir(dir int, name string, link *peerplane.Refusal, what string) (int, *refused) {
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return -1, statRefusal(err, what)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return -1, &refused{link, what + " passes through a symbolic link"}
	case unix.S_IFDIR:
	default:
		return -1, &refused{peerplane.NotFound(), what + " names a file that is not a directory"}
	}
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case err == nil:
		return fd, nil
	case errors.Is(err, unix.ELOOP):
		return -1, &refused{link, what + " passes through a symbolic link"}
	case errors.Is(err, unix.ENOTDIR):
		return -1, &refused{peerplane.NotFound(), what + " names a file that is not a directory"}
	}
	return -1, statRefusal(err, what)
}

// openRegular opens the regular file name below dir: lstat first, so a
// fifo or device is never opened, then O_NOFOLLOW|O_NONBLOCK, then fstat on
// the descriptor decides (a swap between the two is refused too).
func openRegular(openat openatFunc, dir int, name string) (*opened, *refused) {
	const what = "the file"
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, statRefusal(err, what)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return nil, &refused{peerplane.SymlinkRefused(), "the file is a symbolic link"}
	case unix.S_IFREG:
	default:
		return nil, &refused{peerplane.NotARegularFile(), "the path names a directory, fifo, socket or device"}
	}
	fd, err := openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ELOOP):
		return nil, &refused{peerplane.SymlinkRefused(), "the file is a symbolic link"}
	case err != nil:
		return nil, statRefusal(err, what)
	}
	if err := unix.Fstat(fd, &st); err != nil {
		_ = unix.Close(fd)
		return nil, &refused{peerplane.IOError(), "the file could not be examined: " + err.Error()}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		_ = unix.Close(fd)
		return nil, &refused{peerplane.NotARegularFile(), "the path names a directory, fifo, socket or device"}
	}
	return &opened{f: os.NewFile(uintptr(fd), name), id: idOf(&st)}, nil
}

func statRefusal(err error, what string) *refused {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return &refused{peerplane.NotFound(), what + " does not exist"}
	}
	return &refused{peerplane.IOError(), what + " could not be opened: " + err.Error()}
}

// restat is o's fileID now, from its descriptor.
func restat(o *opened) (fileID, error) {
	rc, err := o.f.SyscallConn()
	if err != nil {
		return fileID{}, err
	}
	var st unix.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) }); err != nil {
		return fileID{}, err
	}
	if serr != nil {
		return fileID{}, serr
	}
	return idOf(&st), nil
}
