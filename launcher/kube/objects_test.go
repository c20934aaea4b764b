package kube

import (
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// A capsule above what one ConfigMap holds is refused before anything is
// applied, naming the member and the bound.
func TestObjectsCapsuleBound(t *testing.T) {
	s := Spec{FormationID: "frm_0192f0c0ffee7000800000000000beef", Namespace: "ns", Image: "mur",
		Members: []Member{{Name: "big", Capsule: "c", Version: "1.0.0", Files: map[string][]byte{"tree/x": make([]byte, MaxCapsuleBytes+1)}}}}
	_, err := Objects(s, "uid")
	if err == nil || !strings.Contains(err.Error(), "member big: capsule c@1.0.0 is 1048577 bytes") {
		t.Fatalf("err = %v", err)
	}
	s.Members[0].Files["tree/x"] = make([]byte, MaxCapsuleBytes)
	if _, err := Objects(s, "uid"); err != nil {
		t.Fatalf("a capsule of exactly the bound: %v", err)
	}
}

// Every member object name is an RFC 1035 label for the longest member name
// a roster admits (32 characters).
func TestNamesAreLabels(t *testing.T) {
	n := NamesOf("frm_0192f0c0ffee7000800000000000beef")
	long := "a" + strings.Repeat("b", 31)
	for _, name := range []string{n.Formation(), n.Member(long)} {
		if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
			t.Errorf("%s: %v", name, errs)
		}
	}
	for _, name := range []string{n.Secret(long), n.Capsule(long)} {
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Errorf("%s: %v", name, errs)
		}
	}
	if NamesOf("frm_other").Formation() == n.Formation() {
		t.Error("two formations share an object name")
	}
}

func TestLeaseExpired(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	secs := int32(30)
	at := func(ago time.Duration) *coordinationv1.Lease {
		rt := metav1.NewMicroTime(now.Add(-ago))
		return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{RenewTime: &rt, LeaseDurationSeconds: &secs}}
	}
	for _, c := range []struct {
		l    *coordinationv1.Lease
		want bool
	}{
		{&coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: &secs}}, true}, // never renewed
		{at(29 * time.Second), false},
		{at(30 * time.Second), false},
		{at(31 * time.Second), true},
	} {
		if got := LeaseExpired(c.l, now); got != c.want {
			t.Errorf("renewed %v: expired = %v, want %v", c.l.Spec.RenewTime, got, c.want)
		}
	}
}

func TestPodReady(t *testing.T) {
	cond := func(s corev1.ConditionStatus) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: s}}}}
	}
	if r, e := PodReady(cond(corev1.ConditionTrue)); !r || e != "" {
		t.Errorf("ready pod: %v %q", r, e)
	}
	if r, e := PodReady(cond(corev1.ConditionFalse)); r || e != "" {
		t.Errorf("unready pod: %v %q", r, e)
	}
	p := cond(corev1.ConditionFalse)
	p.Name, p.Status.Phase = "x", corev1.PodFailed
	if r, e := PodReady(p); r || e != "its pod x ended (Failed)" {
		t.Errorf("failed pod: %v %q", r, e)
	}
}
