package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// FieldManager is the server-side apply field manager of every object the
// launcher applies.
const FieldManager = "mur"

// Client is the launcher's connection to one cluster.
type Client struct {
	Config  *rest.Config
	Dynamic dynamic.Interface
	http    *http.Client
}

// The resources the launcher reads and deletes by name.
var (
	configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	pods       = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	leases     = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
)

// get reads one object into out, a typed object of its kind. The typed
// clientset is not used: it would link every API group into mur.
func (c *Client) get(ctx context.Context, r schema.GroupVersionResource, namespace, name string, out any) error {
	u, err := c.Dynamic.Resource(r).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out)
}

// Connect reads kubeconfig (the default loading rules when "") at context
// kubeContext (its current context when "") and returns the client and the
// namespace the context names ("default" when none).
func Connect(kubeconfig, kubeContext string) (*Client, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubeContext})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", err
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", err
	}
	c, err := NewClient(cfg)
	return c, ns, err
}

// NewClient makes a Client from a REST config.
func NewClient(cfg *rest.Config) (*Client, error) {
	d, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	return &Client{Config: cfg, Dynamic: d, http: hc}, nil
}

// Apply applies the formation object, then every object it owns, by
// server-side apply; it returns the formation object's uid. A failure
// after the formation object exists leaves it for Teardown.
func (c *Client) Apply(ctx context.Context, s Spec) (types.UID, error) {
	fo := FormationObject(s)
	got, err := c.apply(ctx, fo)
	if err != nil {
		return "", fmt.Errorf("apply the formation object %s/%s: %w", s.Namespace, fo.Name, err)
	}
	objs, err := Objects(s, got.GetUID())
	if err != nil {
		return got.GetUID(), err
	}
	for _, o := range objs {
		if _, err := c.apply(ctx, o); err != nil {
			return got.GetUID(), err
		}
	}
	return got.GetUID(), nil
}

// apply sends o as a server-side apply patch with force: the launcher
// owns every field it sets.
func (c *Client) apply(ctx context.Context, o runtime.Object) (metav1.Object, error) {
	gvk := o.GetObjectKind().GroupVersionKind()
	mapping, err := restMapping(gvk.Group, gvk.Version, gvk.Kind)
	if err != nil {
		return nil, err
	}
	acc, err := meta.Accessor(o)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	res, err := c.Dynamic.Resource(mapping).Namespace(acc.GetNamespace()).Patch(ctx, acc.GetName(), types.ApplyPatchType, body,
		metav1.PatchOptions{FieldManager: FieldManager, Force: ptr(true)})
	if err != nil {
		return nil, fmt.Errorf("%s %s/%s: %w", gvk.Kind, acc.GetNamespace(), acc.GetName(), err)
	}
	return res, nil
}

// Teardown deletes the formation object with foreground propagation: the
// garbage collector deletes every object it owns first. Deleting one that
// is already gone is no error.
func (c *Client) Teardown(ctx context.Context, namespace, formationID string) error {
	fg := metav1.DeletePropagationForeground
	err := c.Dynamic.Resource(configMaps).Namespace(namespace).Delete(ctx, NamesOf(formationID).Formation(), metav1.DeleteOptions{PropagationPolicy: &fg})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// RenewLease sets the formation Lease's renewTime to now.
func (c *Client) RenewLease(ctx context.Context, namespace, formationID string, now time.Time) error {
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"renewTime": metav1.NewMicroTime(now)}})
	if err != nil {
		return err
	}
	_, err = c.Dynamic.Resource(leases).Namespace(namespace).Patch(ctx, NamesOf(formationID).Formation(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
	return err
}

// HoldLease renews the formation's Lease every third of its duration until
// ctx ends; a renewal that fails is retried at the next tick and reported
// through failed (nil: not reported). It returns once ctx is done.
func (c *Client) HoldLease(ctx context.Context, s Spec, failed func(error)) {
	every := s.leaseDuration() / 3
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := c.RenewLease(ctx, s.Namespace, s.FormationID, time.Now()); err != nil && ctx.Err() == nil && failed != nil {
			failed(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// LeaseExpired reports whether l has lapsed at now: never renewed, or its
// renewTime plus its duration is past.
func LeaseExpired(l *coordinationv1.Lease, now time.Time) bool {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return true
	}
	return now.After(l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second))
}

// PodReady reports whether p's Ready condition is true, and why it never
// will be when its phase is Failed or Succeeded.
func PodReady(p *corev1.Pod) (ready bool, ended string) {
	switch p.Status.Phase {
	case corev1.PodFailed, corev1.PodSucceeded:
		return false, fmt.Sprintf("its pod %s ended (%s)", p.Name, p.Status.Phase)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue, ""
		}
	}
	return false, ""
}

// ErrPodEnded is wrapped by WaitReady's error when a pod ended before it
// was ready.
var ErrPodEnded = errors.New("pod ended")

// WaitReady polls every member pod of s until each is ready, one ends, or
// ctx ends.
func (c *Client) WaitReady(ctx context.Context, s Spec, every time.Duration) error {
	n := NamesOf(s.FormationID)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		all := true
		for _, m := range s.Members {
			p := &corev1.Pod{}
			if err := c.get(ctx, pods, s.Namespace, n.Member(m.Name), p); err != nil {
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
				all = false
				continue
			}
			ready, ended := PodReady(p)
			if ended != "" {
				return fmt.Errorf("member %s: %s: %w", m.Name, ended, ErrPodEnded)
			}
			all = all && ready
		}
		if all {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// restMapping is the resource of each kind Objects renders; the launcher
// needs no discovery round trip for them.
func restMapping(group, version, kind string) (schema.GroupVersionResource, error) {
	resources := map[string]string{"ConfigMap": "configmaps", "Lease": "leases", "ServiceAccount": "serviceaccounts",
		"Role": "roles", "RoleBinding": "rolebindings", "Secret": "secrets", "Service": "services",
		"NetworkPolicy": "networkpolicies", "Pod": "pods"}
	r, ok := resources[kind]
	if !ok {
		return schema.GroupVersionResource{}, fmt.Errorf("no resource for kind %s", kind)
	}
	return schema.GroupVersionResource{Group: group, Version: version, Resource: r}, nil
}
