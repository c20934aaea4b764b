package diag

// The failures a session's start can meet after its records exist that no
// manifest or flag caused (ours): each ends the start in order (SES-3).
const (
	ERUN049 Code = "E-RUN-049"
	ERUN050 Code = "E-RUN-050"
	ERUN051 Code = "E-RUN-051"
)

// RunBridgeListen is E-RUN-049: a process session's loopback tool server
// (process.md BRG-1) could not listen.
func RunBridgeListen(why string) *Diagnostic {
	return mk(ERUN049, "the loopback tool server could not start: "+why,
		"the harness's tool server listens on 127.0.0.1 on a port the OS picks: check that the loopback interface is up and that this process may open sockets and files")
}

// RunTaskTable is E-RUN-050: the session's task table could not be made.
func RunTaskTable(why string) *Diagnostic {
	return mk(ERUN050, "the session's task table could not be made: "+why,
		"lifecycle.task_acceptance and lifecycle.queue_depth set it up: check them with mur doctor; if they are valid, this is a bug in mur")
}

// RunLaunchTask is E-RUN-051: the task given at launch (--task) could not
// be submitted to the session's own task table.
func RunLaunchTask(why string) *Diagnostic {
	return mk(ERUN051, "the launch task could not be submitted: "+why,
		"lifecycle.task_acceptance must accept a task for --task to run: check it with mur doctor")
}
