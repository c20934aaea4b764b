package kubetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-go/mur/launcher"
	"github.com/murmur-go/mur/launcher/kube"
	"github.com/murmur-go/mur/runtime/store"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// studioProject copies examples/studio into a fresh project and installs
// its three capsules into the project store, as `mur install` does.
func studioProject(t *testing.T) (rosterPath, project, home string) {
	t.Helper()
	src := filepath.Join("..", "..", "..", "examples", "studio")
	project, home = t.TempDir(), t.TempDir()
	b, err := os.ReadFile(filepath.Join(src, "roster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rosterPath = filepath.Join(project, "roster.yaml")
	if err := os.WriteFile(rosterPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ss := store.Stores{ProjectDir: project, Home: home}
	for _, m := range []string{"planner", "coder", "reviewer"} {
		if _, err := ss.Install(filepath.Join(src, m), store.ArtifactID{Name: "studio-" + m, Version: "0.1.0", Runtime: "capsule"}, store.ScopeProject); err != nil {
			t.Fatalf("install %s: %v", m, err)
		}
	}
	return rosterPath, project, home
}

func studioSpec(t *testing.T, namespace string) kube.Spec {
	t.Helper()
	rp, project, home := studioProject(t)
	s, err := launcher.KubeSpec(context.Background(), launcher.Config{RosterPath: rp, Resolver: launcher.NewStoreResolver(project, home)}, namespace, "mur:test")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func createNamespace(t *testing.T, c *cluster, name string) {
	t.Helper()
	if _, err := c.client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// allowed asks the API server's authorizer whether member's ServiceAccount
// may do verb on resource/name.
func allowed(t *testing.T, c *cluster, s kube.Spec, member, verb, group, resource, name string) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   "system:serviceaccount:" + s.Namespace + ":" + kube.NamesOf(s.FormationID).Member(member),
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + s.Namespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: s.Namespace, Verb: verb, Group: group,
			Resource: resource, Name: name},
	}}
	got, err := c.client.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), sar, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Status.Allowed
}

// The objects examples/studio becomes are accepted by a real API server's
// validation (twice: server-side apply is idempotent), each member's
// ServiceAccount may read only its own Secret and only the formation's
// Lease (RBAC decides, asked through SubjectAccessReview), and deleting
// the formation object makes the garbage collector remove every other.
func TestStudioOnAPIServer(t *testing.T) {
	c := startCluster(t)
	ctx := context.Background()
	s := studioSpec(t, "studio")
	createNamespace(t, c, s.Namespace)
	kc, err := kube.NewClient(c.server.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	uid, err := kc.Apply(ctx, s)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if again, err := kc.Apply(ctx, s); err != nil || again != uid {
		t.Fatalf("second apply: uid %s (first %s), err %v", again, uid, err)
	}
	n := kube.NamesOf(s.FormationID)
	sel := metav1.ListOptions{LabelSelector: kube.LabelFormation + "=" + s.FormationID}
	pods, err := c.client.CoreV1().Pods(s.Namespace).List(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 3 {
		t.Fatalf("%d pods, want 3", len(pods.Items))
	}
	for _, p := range pods.Items {
		if len(p.OwnerReferences) != 1 || p.OwnerReferences[0].UID != uid {
			t.Errorf("pod %s: owners %v, want the formation object %s", p.Name, p.OwnerReferences, uid)
		}
	}

	// RBAC: own Secret yes, another member's no; the formation's Lease
	// (get, watch) yes, another Lease and any list no.
	for _, q := range []struct {
		member, verb, group, resource, name string
		want                                bool
	}{
		{"coder", "get", "", "secrets", n.Secret("coder"), true},
		{"coder", "get", "", "secrets", n.Secret("planner"), false},
		{"planner", "get", "", "secrets", n.Secret("reviewer"), false},
		{"coder", "list", "", "secrets", "", false},
		{"coder", "watch", "coordination.k8s.io", "leases", n.Formation(), true},
		{"coder", "get", "coordination.k8s.io", "leases", n.Formation(), true},
		{"coder", "update", "coordination.k8s.io", "leases", n.Formation(), false},
		{"coder", "get", "coordination.k8s.io", "leases", "another", false},
		{"coder", "get", "", "configmaps", n.Capsule("planner"), false},
	} {
		if got := allowed(t, c, s, q.member, q.verb, q.group, q.resource, q.name); got != q.want {
			t.Errorf("%s may %s %s/%s: %v, want %v", q.member, q.verb, q.resource, q.name, got, q.want)
		}
	}

	// The Lease: renewed now it holds; renewed longer ago than its
	// duration it has expired, as a member pod reads it.
	if err := kc.RenewLease(ctx, s.Namespace, s.FormationID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if why, err := kc.LeaseEnded(ctx, s.Namespace, n.Formation()); err != nil || why != "" {
		t.Fatalf("a renewed Lease: ended %q, err %v", why, err)
	}
	if err := kc.RenewLease(ctx, s.Namespace, s.FormationID, time.Now().Add(-kube.DefaultLeaseDuration-time.Second)); err != nil {
		t.Fatal(err)
	}
	want := "the formation's Lease " + n.Formation() + " expired: its launcher stopped renewing it"
	if why, err := kc.LeaseEnded(ctx, s.Namespace, n.Formation()); err != nil || why != want {
		t.Fatalf("a lapsed Lease: ended %q, err %v", why, err)
	}

	// Teardown: the formation object, then the garbage collector.
	if err := kc.Teardown(ctx, s.Namespace, s.FormationID); err != nil {
		t.Fatal(err)
	}
	left := waitGone(t, c, s, 90*time.Second)
	if len(left) > 0 {
		t.Fatalf("90s after teardown, still there: %v", left)
	}
	if why, err := kc.LeaseEnded(ctx, s.Namespace, n.Formation()); err != nil || why != "the formation's Lease "+n.Formation()+" is gone" {
		t.Fatalf("after teardown: ended %q, err %v", why, err)
	}
}

// waitGone polls until no object of s's formation is left, or bound has
// passed; it returns what is left then.
func waitGone(t *testing.T, c *cluster, s kube.Spec, bound time.Duration) []string {
	t.Helper()
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: kube.LabelFormation + "=" + s.FormationID}
	deadline := time.Now().Add(bound)
	for {
		var left []string
		add := func(kind string, l runtime.Object, err error) {
			if err != nil {
				t.Fatal(err)
			}
			for range meta.LenList(l) {
				left = append(left, kind)
			}
		}
		cs, ns := c.client, s.Namespace
		cm, err := cs.CoreV1().ConfigMaps(ns).List(ctx, sel)
		add("configmap", cm, err)
		p, err := cs.CoreV1().Pods(ns).List(ctx, sel)
		add("pod", p, err)
		sec, err := cs.CoreV1().Secrets(ns).List(ctx, sel)
		add("secret", sec, err)
		sa, err := cs.CoreV1().ServiceAccounts(ns).List(ctx, sel)
		add("serviceaccount", sa, err)
		svc, err := cs.CoreV1().Services(ns).List(ctx, sel)
		add("service", svc, err)
		ro, err := cs.RbacV1().Roles(ns).List(ctx, sel)
		add("role", ro, err)
		rb, err := cs.RbacV1().RoleBindings(ns).List(ctx, sel)
		add("rolebinding", rb, err)
		np, err := cs.NetworkingV1().NetworkPolicies(ns).List(ctx, sel)
		add("networkpolicy", np, err)
		le, err := cs.CoordinationV1().Leases(ns).List(ctx, sel)
		add("lease", le, err)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(500 * time.Millisecond)
	}
}
