//go:build kube

package launcher

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/launcher/kube"
	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/credential"
	"github.com/murmur-go/mur/runtime/store"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// studioSpec admits examples/studio against artifacts made from its member
// directories and renders it with fixed keys and tokens, so the objects are
// the same on every run.
func studioSpec(t *testing.T) kube.Spec {
	t.Helper()
	example := filepath.Join("..", "examples", "studio")
	project := t.TempDir()
	root := filepath.Join(project, ".murmur", "artifacts")
	dirs := map[string]string{"studio-planner": "planner", "studio-coder": "coder", "studio-reviewer": "reviewer"}
	for capsule, dir := range dirs {
		art := filepath.Join(root, capsule, "0.1.0")
		if err := os.MkdirAll(filepath.Join(art, "tree"), 0o755); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(filepath.Join(example, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(example, dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(art, "tree", e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sum, err := store.Hash(filepath.Join(art, "tree"))
		if err != nil {
			t.Fatal(err)
		}
		meta := `{"name":"` + capsule + `","version":"0.1.0","runtime":"capsule","sha256":"` + sum +
			`","installed_at":"2026-01-01T00:00:00Z","source_path":"examples/studio/` + dir + `"}` + "\n"
		if err := os.WriteFile(filepath.Join(art, "meta.json"), []byte(meta), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, _, err := roster.Admit(filepath.Join(example, "roster.yaml"), NewStoreResolver(project, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	seed := make([]byte, ed25519.SeedSize)
	priv := ed25519.NewKeyFromSeed(seed)
	seed[0] = 1
	c := &credentials{formationID: "frm_0192f0c0ffee7000800000000000beef", pub: priv.Public().(ed25519.PublicKey), priv: priv,
		cardKey: ed25519.NewKeyFromSeed(seed), member: map[string]map[string]credential.Token{}}
	for _, e := range f.Edges {
		if c.member[e.From] == nil {
			c.member[e.From] = map[string]credential.Token{}
		}
		c.member[e.From][e.To] = credential.Token("token-" + e.From + "-" + e.To)
	}
	l := newLaunch(Config{})
	l.f, l.creds, l.pid = f, c, 4242
	s, err := l.kubeSpec("studio", "mur:test")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKubeObjectsStudio pins every object examples/studio becomes on a
// cluster: the formation object, then the Lease and each member's
// ServiceAccount, Role, RoleBinding, Secret, capsule ConfigMap, Service,
// NetworkPolicy and Pod, all owned by the formation object.
func TestKubeObjectsStudio(t *testing.T) {
	s := studioSpec(t)
	objs, err := kube.Objects(s, "00000000-0000-0000-0000-000000000001")
	if err != nil {
		t.Fatal(err)
	}
	y, err := kube.RenderYAML(append([]runtime.Object{kube.FormationObject(s)}, objs...))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "kube-studio", y)
	// The member tokens are only in the Secrets, never in a pod's spec.
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			b, _ := kube.RenderYAML([]runtime.Object{p})
			if strings.Contains(string(b), "token-") {
				t.Errorf("pod %s carries a member token in its spec", p.Name)
			}
		}
	}
}
