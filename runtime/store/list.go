package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Installed is one row of List.
type Installed struct {
	Scope Scope
	Meta  Meta
}

// List returns the artifacts installed in scope's store, by name then
// version (numeric segments compared as numbers), read from their
// meta.json files; an entry whose meta.json cannot be read, or names
// another name or version than its directories, is left out and
// nothing is hashed (capsule.md CLI-7). A missing store lists nothing.
func (s Stores) List(scope Scope) ([]Installed, error) {
	root := s.Root(scope)
	if root == "" {
		return nil, nil
	}
	names, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Installed
	for _, n := range names {
		if !n.IsDir() || strings.HasPrefix(n.Name(), ".") {
			continue
		}
		versions, err := os.ReadDir(filepath.Join(root, n.Name()))
		if err != nil {
			return nil, err
		}
		for _, v := range versions {
			if !v.IsDir() || strings.HasPrefix(v.Name(), ".") {
				continue
			}
			meta, err := readMeta(filepath.Join(root, n.Name(), v.Name(), "meta.json"))
			if err != nil || meta.Name != n.Name() || meta.Version != v.Name() {
				continue // a meta.json naming another place is not this entry's
			}
			out = append(out, Installed{Scope: scope, Meta: meta})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Meta, out[j].Meta
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return CompareVersions(a.Version, b.Version) < 0
	})
	return out, nil
}

// CompareVersions orders versions by their '.'- and '-'-separated segments,
// numeric segments as numbers and others as text ("1.9" < "1.10").
func CompareVersions(a, b string) int {
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '-' })
	}
	as, bs := split(a), split(b)
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, xerr := strconv.ParseUint(as[i], 10, 64)
		y, yerr := strconv.ParseUint(bs[i], 10, 64)
		switch {
		case xerr == nil && yerr == nil:
			if x != y {
				if x < y {
					return -1
				}
				return 1
			}
		case as[i] != bs[i]:
			return strings.Compare(as[i], bs[i])
		}
	}
	switch {
	case len(as) != len(bs):
		return len(as) - len(bs)
	default:
		return strings.Compare(a, b)
	}
}
