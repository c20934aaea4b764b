package main

import (
	"os"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// murBin is the real `mur` binary, built once for this package's tests by
// TestMain (ARCHITECTURE.md "Tests"). Every command's process tests share it:
// this package has exactly one TestMain, here.
var murBin string

func TestMain(m *testing.M) { os.Exit(testmur.Run(m, testmur.Mur, &murBin)) }
