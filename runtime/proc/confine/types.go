package confine

// Sealed is what a sealed start adds to a Spec (JSON-encoded in
// Spec.Sealed, read by package confine/sealed): the trampoline then runs as
// the init (pid 1) of the PID, network, IPC and UTS namespaces the sandbox
// started it in, builds the composed root in its own mount namespace,
// pivots into it, makes its own Landlock ruleset over the composed paths,
// confines itself as under scoped, applies its resource limits and starts
// the command as its one child, which it waits for, passing signals on and
// reaping every orphan, and whose exit it exits with.
type Sealed struct {
	Root      string  `json:"root"`   // an empty host directory the composed root is mounted on
	Mounts    []Mount `json:"mounts"` // in order: a parent before what lies below it
	Dir       string  `json:"dir"`    // the command's working directory inside the root
	HandledFS uint64  `json:"handled_fs"`
	Scoped    uint64  `json:"scoped"`
	Rules     []Rule  `json:"rules"` // paths inside the root
	Limits    []Limit `json:"limits"`
	CgroupFD  []int   `json:"cgroup_fds,omitempty"` // cgroup.procs files to join, each inherited
	Hostname  string  `json:"hostname"`
}

// Mount is one entry of the composed root: Kind "rw" or "ro" binds Src at
// Dst (a directory or a file, as Src is; an Src that does not exist is left
// out), "tmp" mounts a private tmpfs (64 MiB) at Dst, "proc" mounts a fresh
// proc of the new PID namespace at Dst, "dev" makes Dst a directory of the
// bound device files Names (plus fd, stdin, stdout, stderr links into
// /proc/self/fd).
type Mount struct {
	Kind  string   `json:"kind"`
	Src   string   `json:"src,omitempty"`
	Dst   string   `json:"dst"`
	Names []string `json:"names,omitempty"`
}

// Rule is one Landlock path-beneath rule: Access masked by what the path is
// (a file takes the file rights only) and by Sealed.HandledFS.
type Rule struct {
	Path   string `json:"path"`
	Access uint64 `json:"access"`
}

// Limit is one setrlimit(2) resource, soft and hard both Max.
type Limit struct {
	Resource int    `json:"resource"`
	Max      uint64 `json:"max"`
}
