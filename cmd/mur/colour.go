package main

import (
	"io"
	"os"
	"strings"
)

// ANSI SGR sequences for the marks mur colours on a terminal:
// ✓ green, ✗ and errors red, warnings yellow.
const (
	sgrGreen  = "\x1b[32m"
	sgrRed    = "\x1b[1;31m"
	sgrYellow = "\x1b[33m"
	sgrReset  = "\x1b[0m"
)

// colourer rewrites text for a terminal: ✓ and ✗ anywhere, and a line's
// leading "error[", "error:" and "warning[" (README.md "Output contract"),
// each wrapped in its colour. Nothing else changes, so a text's meaning is
// the same with colour and without.
var colourer = strings.NewReplacer(
	"✓", sgrGreen+"✓"+sgrReset,
	"✗", sgrRed+"✗"+sgrReset,
	"\nerror[", "\n"+sgrRed+"error"+sgrReset+"[",
	"\nerror:", "\n"+sgrRed+"error"+sgrReset+":",
	"\nwarning[", "\n"+sgrYellow+"warning"+sgrReset+"[",
)

// colourize returns s coloured for a terminal.
func colourize(s string) string {
	// A leading newline lets the replacer see the first line's start too.
	return strings.TrimPrefix(colourer.Replace("\n"+s), "\n")
}

// colourWriter colours each write (whole lines, as mur writes them) for a
// terminal.
type colourWriter struct{ w io.Writer }

func (c colourWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, colourize(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// wantsColour reports whether f is a terminal mur should colour: a
// terminal, NO_COLOR unset or empty (no-color.org), TERM not "dumb".
func wantsColour(f *os.File, getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && getenv("TERM") != "dumb" && isTerminal(f)
}

// out is the writer for a command's human text on stdout: coloured when
// stdout is a terminal that wants colour. --json output never goes through
// it.
func (e *Env) out() io.Writer {
	if e.ColourStdout {
		return colourWriter{e.Stdout}
	}
	return e.Stdout
}
