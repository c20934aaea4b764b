package murhome

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// procRoot is where process information lives (Linux procfs).
const procRoot = "/proc"

// readStat returns field 22 (starttime) and field 3 (state) of /proc/<pid>/stat.
func readStat(pid int) (start string, state byte, err error) {
	data, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", procRoot, pid))
	if err != nil {
		return "", 0, err
	}
	// Field 2, the command name, is parenthesised and may hold spaces or
	// ')': the fields after it start after the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", 0, fmt.Errorf("/proc/%d/stat: no command field", pid)
	}
	f := strings.Fields(s[i+1:])
	const startField = 22 - 3 // f[0] is field 3
	if len(f) <= startField || len(f[0]) != 1 {
		return "", 0, fmt.Errorf("/proc/%d/stat: %d fields after the command", pid, len(f))
	}
	if _, err := strconv.ParseUint(f[startField], 10, 64); err != nil {
		return "", 0, fmt.Errorf("/proc/%d/stat: field 22 %q is not a number", pid, f[startField])
	}
	return f[startField], f[0][0], nil
}
