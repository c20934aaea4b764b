package testmur

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Procs lists the live processes (no zombie) whose /proc stat fields, from
// field 3 on (state ppid pgrp session …), and command line satisfy keep,
// each as its stat's "<pid> (<comm>)".
func Procs(keep func(stat []string, cmdline []byte) bool) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:])) // state ppid pgrp session …
		if len(f) < 4 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if keep(f, cmdline) {
			out = append(out, string(b[:i+1]))
		}
	}
	return out
}

// InSession lists the live processes whose session id is sid (a command
// started in a session of its own has its pid as sid), as Procs does.
func InSession(sid int) []string {
	s := strconv.Itoa(sid)
	return Procs(func(stat []string, _ []byte) bool { return stat[3] == s })
}

// Of lists the live processes that belong to a test's world, each as
// "<pid> (<comm>)": those working in root or below it (their cwd), and those
// whose environment holds one of env's entries (MURMUR_HOME=…,
// MURMUR_SESSION_ID=…). It finds what a test's mur started even once it left
// mur's process group and session, without the pids the test knows of.
func Of(root string, env ...string) []string {
	var out []string
	for _, p := range Procs(func([]string, []byte) bool { return true }) {
		pid, _, _ := strings.Cut(p, " ")
		if pid == strconv.Itoa(os.Getpid()) {
			continue
		}
		dir := filepath.Join("/proc", pid)
		if cwd, err := os.Readlink(filepath.Join(dir, "cwd")); err == nil && (cwd == root || strings.HasPrefix(cwd, root+"/")) {
			out = append(out, p)
			continue
		}
		environ, _ := os.ReadFile(filepath.Join(dir, "environ"))
		for _, kv := range strings.Split(string(environ), "\x00") {
			if slices.Contains(env, kv) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
