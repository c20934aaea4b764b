package diag

import "strings"

// Nearest returns the candidate closest to s by edit distance (Levenshtein,
// on runes), or "" when none is within 2 edits or the distance is not less
// than s's own length (so "x" suggests nothing). The first of equally close
// candidates wins. Did-you-mean texts use it: manifest keys (MAN-2), roster
// keys, flags and subcommands.
func Nearest(s string, candidates []string) string {
	best, bestD := "", 3
	n := len([]rune(s))
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD && d < n {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// ShellWord quotes s for a POSIX shell when it holds anything a shell reads
// specially, so a command a hint names can be pasted as it is.
func ShellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\|&;<>()*?[]#~!{}") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
