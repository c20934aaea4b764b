//go:build !linux

package confine
