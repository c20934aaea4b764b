//go:build !linux

package launcher

// openFDDir lists the launcher's open descriptors, one entry per number
// (fdescfs on macOS and the BSDs).
const openFDDir = "/dev/fd"
