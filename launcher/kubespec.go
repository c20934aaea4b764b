//go:build kube

package launcher

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/murmur-go/mur/launcher/kube"
	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/wire"
)

// kubeDoor is where a member's door binds in its pod: every address of the
// pod, on the port its Service serves.
var kubeDoor = []string{"--bind", "0.0.0.0", "--port", strconv.Itoa(kube.DoorPort)}

// kubeSpec is the formation as the cluster receives it: each member's
// channel holds its credentials line and, when it has callees, their
// addresses as Service URLs, known before any pod runs (CHAN-2, CHAN-3).
func (l *launch) kubeSpec(namespace, image string) (kube.Spec, error) {
	names := kube.NamesOf(l.creds.formationID)
	s := kube.Spec{FormationID: l.creds.formationID, Namespace: namespace, Image: image}
	for i := range l.f.Members {
		m := &l.f.Members[i]
		files, err := artifactFiles(filepath.Dir(m.TreeDir))
		if err != nil {
			return kube.Spec{}, fmt.Errorf("member %s: %w", m.Name, err)
		}
		ch := l.creds.firstLine(m, l.f.Roster.Cancel, l.pid, l.procStart)
		if len(m.Callees) > 0 {
			addrs := make([]wire.Address, len(m.Callees))
			for j, c := range m.Callees {
				addrs[j] = wire.Address{Name: c, URL: names.URL(namespace, c)}
			}
			ch = append(ch, addressLine(addrs)...)
		}
		var callers []string
		for _, e := range l.f.Edges {
			if e.To == m.Name {
				callers = append(callers, e.From)
			}
		}
		s.Members = append(s.Members, kube.Member{Name: m.Name, Capsule: m.Capsule, Version: m.Version, SHA256: m.SHA256,
			Entry: m.Entry, Callers: callers, Files: files, Channel: ch,
			Args: l.runArgs(m, m.Entry, kube.ProjectDir, kube.WorkDir, kubeDoor)})
	}
	return s, nil
}

// artifactFiles reads an installed artifact directory (meta.json and
// tree/…) as slash-separated relative paths; it refuses anything but
// directories and regular files.
func artifactFiles(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file; a capsule reaches its pod as regular files only", p)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	return out, err
}

// KubeSpec admits cfg's roster and mints its credentials as `mur run
// --roster --on kubernetes` does, and returns what it would apply to
// namespace, without contacting a cluster.
func KubeSpec(ctx context.Context, cfg Config, namespace, image string) (kube.Spec, error) {
	l := newLaunch(cfg)
	f, _, err := roster.AdmitContext(ctx, cfg.RosterPath, cfg.Resolver)
	if err != nil {
		return kube.Spec{}, err
	}
	c, err := mint(ctx, f)
	if err != nil {
		return kube.Spec{}, err
	}
	l.f, l.creds = f, c
	return l.kubeSpec(namespace, image)
}
