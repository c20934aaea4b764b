// Package kube renders an admitted formation as Kubernetes objects and
// applies them to a cluster through client-go.
//
// The mapping (docs/kubernetes.md):
//   - the formation is one ConfigMap every other object owner-references, so
//     deleting it lets the garbage collector remove the rest;
//   - a Lease the launcher renews stands for the lifeline: each member's pod
//     watches it and its member winds down once the Lease expires;
//   - per member: a Pod running the mur image, a Service in front of its
//     door, a Secret holding its channel (its formation credentials and its
//     callees' addresses, never an environment variable), a ConfigMap holding
//     its installed capsule, a ServiceAccount whose Role may get only that
//     Secret and get or watch only the formation's Lease, and a default-deny
//     NetworkPolicy admitting only its roster callers.
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The labels every object of a formation carries.
const (
	LabelFormation = "murmur.dev/formation" // the formation id
	LabelMember    = "murmur.dev/member"    // the member's name (member objects only)
	LabelManagedBy = "app.kubernetes.io/managed-by"
	managedBy      = "mur"
)

// DoorPort is the port every member's door binds in its pod and its Service
// serves.
const DoorPort = 8080

// ImageUID is the mur image's user (the Dockerfile's mur), named by number
// so that runAsNonRoot can be checked.
const ImageUID int64 = 1000

// MaxCapsuleBytes bounds one member's capsule ConfigMap: the API server
// refuses a ConfigMap whose data exceeds 1 MiB.
const MaxCapsuleBytes = 1 << 20

// Paths inside a member's pod.
const (
	ChannelDir  = "/var/run/murmur/channel" // the Secret's mount
	ChannelKey  = "channel"                 // the Secret's key: the channel's lines
	ProjectDir  = "/murmur/project"         // --store-root: its store holds the capsule
	WorkDir     = "/murmur/work"            // the member's own directory (an emptyDir)
	capsuleRoot = ProjectDir + "/.murmur/artifacts"
)

// DefaultLeaseDuration is how long the formation's Lease holds without a
// renewal; the launcher renews it at a third of that.
const DefaultLeaseDuration = 30 * time.Second

// Spec is one formation as the cluster receives it. Every field is known
// before anything is applied.
type Spec struct {
	FormationID string
	Namespace   string
	Image       string
	// LeaseDuration is the formation Lease's duration; zero means
	// DefaultLeaseDuration.
	LeaseDuration time.Duration
	Members       []Member // roster order
}

// Member is one admitted member with what its pod receives.
type Member struct {
	Name    string
	Capsule string
	Version string
	SHA256  string
	Entry   bool
	Callers []string // the members with an edge to it (roster order)
	// Capsule is the installed artifact directory's files (meta.json and
	// tree/…), slash-separated paths relative to it.
	Files map[string][]byte
	// Channel is what the member reads as its formation channel: the
	// credentials line, then its callees' address line.
	Channel []byte
	// Args are the member's mur run arguments after "mur run".
	Args []string
}

// Names derives every object name from the formation id: member objects
// are "<member>-<short>", an RFC 1035 label of at most 43 characters.
type Names struct{ short string }

// NamesOf returns the names of formationID's objects.
func NamesOf(formationID string) Names {
	sum := sha256.Sum256([]byte(formationID))
	return Names{short: hex.EncodeToString(sum[:])[:10]}
}

// Formation is the owner object's name; the Lease has the same name.
func (n Names) Formation() string { return "murmur-" + n.short }

// Member is the name of member's Pod, Service, ServiceAccount, Role,
// RoleBinding and NetworkPolicy.
func (n Names) Member(member string) string { return member + "-" + n.short }

// Secret is the name of member's channel Secret.
func (n Names) Secret(member string) string { return n.Member(member) + "-channel" }

// Capsule is the name of member's capsule ConfigMap.
func (n Names) Capsule(member string) string { return n.Member(member) + "-capsule" }

// Host is member's door as the other pods reach it (its Service's DNS name).
func (n Names) Host(namespace, member string) string {
	return n.Member(member) + "." + namespace + ".svc"
}

// URL is member's door URL inside the cluster.
func (n Names) URL(namespace, member string) string {
	return "http://" + n.Host(namespace, member) + ":" + strconv.Itoa(DoorPort)
}

func (s Spec) leaseDuration() time.Duration {
	if s.LeaseDuration > 0 {
		return s.LeaseDuration
	}
	return DefaultLeaseDuration
}

// FormationObject is the owner every other object references.
func FormationObject(s Spec) *corev1.ConfigMap {
	n := NamesOf(s.FormationID)
	members := make([]string, len(s.Members))
	for i, m := range s.Members {
		members[i] = m.Name
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: objectMeta(s, n.Formation(), ""),
		Data: map[string]string{
			"formation_id": s.FormationID,
			"members":      fmt.Sprint(members),
		},
	}
}

// Objects returns the objects owned by the formation object whose uid is
// owner, in the order they are applied: the Lease, then each member's
// ServiceAccount, Role, RoleBinding, Secret, capsule ConfigMap, Service,
// NetworkPolicy and Pod. It refuses a member whose capsule exceeds
// MaxCapsuleBytes.
func Objects(s Spec, owner types.UID) ([]runtime.Object, error) {
	n := NamesOf(s.FormationID)
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: n.Formation(), UID: owner,
		BlockOwnerDeletion: ptr(true)}
	own := func(o metav1.ObjectMeta) metav1.ObjectMeta {
		o.OwnerReferences = []metav1.OwnerReference{ref}
		return o
	}
	secs := int32(s.leaseDuration() / time.Second)
	out := []runtime.Object{&coordinationv1.Lease{
		TypeMeta:   metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: own(objectMeta(s, n.Formation(), "")),
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr("mur-launcher"), LeaseDurationSeconds: &secs},
	}}
	for _, m := range s.Members {
		cm, err := capsuleMap(s, n, m)
		if err != nil {
			return nil, err
		}
		cm.ObjectMeta = own(cm.ObjectMeta)
		name := n.Member(m.Name)
		om := own(objectMeta(s, name, m.Name))
		out = append(out,
			&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: om},
			&rbacv1.Role{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"}, ObjectMeta: om,
				Rules: []rbacv1.PolicyRule{
					{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{n.Secret(m.Name)}, Verbs: []string{"get"}},
					{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{n.Formation()}, Verbs: []string{"get", "watch"}},
				}},
			&rbacv1.RoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"}, ObjectMeta: om,
				RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: s.Namespace}}},
			&corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: own(objectMeta(s, n.Secret(m.Name), m.Name)),
				Type: corev1.SecretTypeOpaque, Immutable: ptr(true), Data: map[string][]byte{ChannelKey: m.Channel}},
			cm,
			&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: om,
				Spec: corev1.ServiceSpec{Selector: selector(s, m.Name),
					Ports: []corev1.ServicePort{{Name: "door", Port: DoorPort, TargetPort: intstr.FromInt32(DoorPort), Protocol: corev1.ProtocolTCP}}}},
			networkPolicy(s, om, m),
			pod(s, n, om, m),
		)
	}
	return out, nil
}

func objectMeta(s Spec, name, member string) metav1.ObjectMeta {
	l := map[string]string{LabelFormation: s.FormationID, LabelManagedBy: managedBy}
	if member != "" {
		l[LabelMember] = member
	}
	return metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: l}
}

func selector(s Spec, member string) map[string]string {
	return map[string]string{LabelFormation: s.FormationID, LabelMember: member}
}

// networkPolicy admits ingress to member's pod only from its roster callers'
// pods, on the door's port; a member no one calls admits nothing (the
// operator's port-forward enters the pod's own network namespace).
func networkPolicy(s Spec, om metav1.ObjectMeta, m Member) *networkingv1.NetworkPolicy {
	np := &networkingv1.NetworkPolicy{TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"}, ObjectMeta: om,
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: selector(s, m.Name)},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{},
		}}
	if len(m.Callers) > 0 {
		port := intstr.FromInt32(DoorPort)
		np.Spec.Ingress = append(np.Spec.Ingress, networkingv1.NetworkPolicyIngressRule{
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr(corev1.ProtocolTCP), Port: &port}},
			From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{
				MatchLabels:      map[string]string{LabelFormation: s.FormationID},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: LabelMember, Operator: metav1.LabelSelectorOpIn, Values: slices.Clone(m.Callers)}},
			}}},
		})
	}
	return np
}

// capsuleMap holds m's installed artifact; each file is one key (its
// index) mapped back to its path by the pod's volume items.
func capsuleMap(s Spec, n Names, m Member) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: objectMeta(s, n.Capsule(m.Name), m.Name), Immutable: ptr(true)}
	total := 0
	for i, p := range sortedPaths(m.Files) {
		b := m.Files[p]
		total += len(b)
		key := "f" + strconv.Itoa(i)
		if utf8.Valid(b) {
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			cm.Data[key] = string(b)
		} else {
			if cm.BinaryData == nil {
				cm.BinaryData = map[string][]byte{}
			}
			cm.BinaryData[key] = b
		}
	}
	if total > MaxCapsuleBytes {
		return nil, fmt.Errorf("member %s: capsule %s@%s is %d bytes; a capsule reaches its pod as one ConfigMap, which holds at most %d", m.Name, m.Capsule, m.Version, total, MaxCapsuleBytes)
	}
	return cm, nil
}

func sortedPaths(files map[string][]byte) []string {
	ps := make([]string, 0, len(files))
	for p := range files {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// CapsuleDir is where m's artifact lies in its pod: its project store.
func CapsuleDir(m Member) string { return path.Join(capsuleRoot, m.Capsule, m.Version) }

// pod runs `mur __kube-member`, which holds the formation's Lease as the
// member's lifeline and execs `mur run` with the mounted channel.
func pod(s Spec, n Names, om metav1.ObjectMeta, m Member) *corev1.Pod {
	items := make([]corev1.KeyToPath, 0, len(m.Files))
	for i, p := range sortedPaths(m.Files) {
		items = append(items, corev1.KeyToPath{Key: "f" + strconv.Itoa(i), Path: p})
	}
	args := append([]string{"__kube-member", "--lease", n.Formation(), "--channel", ChannelDir + "/" + ChannelKey, "--"}, m.Args...)
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: om,
		Spec: corev1.PodSpec{
			ServiceAccountName: n.Member(m.Name),
			RestartPolicy:      corev1.RestartPolicyNever,
			EnableServiceLinks: ptr(false),
			Containers: []corev1.Container{{
				Name:    "member",
				Image:   s.Image,
				Command: []string{"mur"},
				Args:    args,
				Env: []corev1.EnvVar{
					{Name: "MURMUR_FORMATION_ID", Value: s.FormationID},
					{Name: "MURMUR_KUBE_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
				},
				Ports: []corev1.ContainerPort{{Name: "door", ContainerPort: DoorPort, Protocol: corev1.ProtocolTCP}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
					Path: "/.well-known/agent-card.json", Port: intstr.FromInt32(DoorPort)}}, PeriodSeconds: 1},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "channel", MountPath: ChannelDir, ReadOnly: true},
					{Name: "capsule", MountPath: CapsuleDir(m), ReadOnly: true},
					{Name: "work", MountPath: WorkDir},
				},
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr(false), RunAsNonRoot: ptr(true), RunAsUser: ptr(ImageUID),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
			}},
			Volumes: []corev1.Volume{
				{Name: "channel", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: n.Secret(m.Name), DefaultMode: ptr(int32(0o400))}}},
				{Name: "capsule", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: n.Capsule(m.Name)}, Items: items}}},
				{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
		}}
}

func ptr[T any](v T) *T { return &v }
