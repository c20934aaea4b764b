// Package proc starts the subprocesses the runtime runs for tools and checks
// (shell binaries, plan shell steps, native tools, done_check): the argument
// vector (LOOP-11's word splitting), PATH lookup in the subprocess
// environment, the process attributes (own process group; on Linux a
// parent-death signal, attr_linux.go), exit codes, and Start, which reads a
// command's two streams itself so that its exit is seen when its process
// exits (SHELL-2, SHELL-3).
//
// # Example
//
//	argv, _ := proc.Argv("bash", "echo hi")
//	path, _ := proc.LookPath(argv[0], env)
//	cmd := exec.Command(path, argv[1:]...)
//	cmd.SysProcAttr = proc.SysProcAttr()
//	p, err := proc.Start(sb, cmd, &stdout, &stderr, time.Now)
//	<-p.Done()
//	code := proc.ExitCode(p.Cmd.ProcessState)
package proc
