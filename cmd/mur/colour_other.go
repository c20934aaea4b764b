//go:build !unix

package main

import "os"

// isTerminal is false where the terminal cannot be asked: no colour.
func isTerminal(*os.File) bool { return false }
