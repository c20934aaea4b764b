package launcher

// openFDDir lists the launcher's open descriptors, one entry per number.
const openFDDir = "/proc/self/fd"
