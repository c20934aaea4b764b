package proc

import (
	"errors"
	"strings"
)

// shells run a command line via -c (LOOP-11).
var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "fish": true, "dash": true, "ksh": true}

// IsShell reports whether bin takes its command as one -c argument.
func IsShell(bin string) bool { return shells[bin] }

// Argv is the argument vector a shell tool runs (LOOP-11): for a shell,
// [bin, "-c", command]; otherwise command split by shell-word rules, with bin
// prepended unless the first word already names it.
func Argv(bin, command string) ([]string, error) {
	if IsShell(bin) {
		return []string{bin, "-c", command}, nil
	}
	words, err := SplitWords(command)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 || words[0] != bin {
		words = append([]string{bin}, words...)
	}
	return words, nil
}

// SplitWords splits s into words by POSIX shell quoting rules: blanks separate
// words, single quotes keep everything, double quotes keep everything but a
// backslash before \ " $ ` or newline, a backslash outside quotes escapes the
// next character. No expansion of any kind happens.
func SplitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					cur.WriteByte(s[i])
				}
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unmatched single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unmatched double quote")
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
