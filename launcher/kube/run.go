package kube

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// PortForward forwards a port of 127.0.0.1 to the door of pod until ctx
// ends; it returns the local door URL once the forward listens, and done,
// closed when the forward has stopped.
func (c *Client) PortForward(ctx context.Context, namespace, pod string) (string, <-chan struct{}, error) {
	rt, upgrader, err := spdy.RoundTripperFor(c.Config)
	if err != nil {
		return "", nil, err
	}
	u, err := url.Parse(c.Config.Host)
	if err != nil {
		return "", nil, err
	}
	u.Path = fmt.Sprintf("%s/api/v1/namespaces/%s/pods/%s/portforward", u.Path, namespace, pod)
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, u)
	ready := make(chan struct{})
	fw, err := portforward.NewOnAddressesWithContext(ctx, dialer, []string{"127.0.0.1"}, []string{"0:" + strconv.Itoa(DoorPort)}, ready, io.Discard, io.Discard)
	if err != nil {
		return "", nil, err
	}
	done := make(chan struct{})
	failed := make(chan error, 1)
	go func() {
		defer close(done)
		failed <- fw.ForwardPorts()
	}()
	select {
	case <-ready:
	case err := <-failed:
		return "", done, fmt.Errorf("port-forward to pod %s: %w", pod, err)
	case <-ctx.Done():
		return "", done, context.Cause(ctx)
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) == 0 {
		return "", done, fmt.Errorf("port-forward to pod %s: no local port", pod)
	}
	return "http://127.0.0.1:" + strconv.Itoa(int(ports[0].Local)), done, nil
}

// FollowLogs copies the pod's container output to w until it ends or ctx
// does. The cluster merges the container's stdout and stderr.
func (c *Client) FollowLogs(ctx context.Context, namespace, pod string, w io.Writer) error {
	u := strings.TrimSuffix(c.Config.Host, "/") + "/api/v1/namespaces/" + url.PathEscape(namespace) + "/pods/" + url.PathEscape(pod) + "/log?follow=true"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNoContent { // a pod that has written nothing yet, or never ran
		return nil
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return fmt.Errorf("%s: %s", res.Status, strings.TrimSpace(string(b)))
	}
	_, err = io.Copy(w, res.Body)
	return err
}

// ExitCode polls pod until its container has terminated and returns its
// exit code, or ctx's cause.
func (c *Client) ExitCode(ctx context.Context, namespace, pod string, every time.Duration) (int, error) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		p := &corev1.Pod{}
		if err := c.get(ctx, pods, namespace, pod, p); err == nil {
			for _, s := range p.Status.ContainerStatuses {
				if s.State.Terminated != nil {
					return int(s.State.Terminated.ExitCode), nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return 0, context.Cause(ctx)
		case <-t.C:
		}
	}
}

// LeaseEnded reads the formation's Lease once and says why it has ended
// — expired (renewTime plus its duration passed by this clock) or gone —
// or "" while it holds.
func (c *Client) LeaseEnded(ctx context.Context, namespace, lease string) (string, error) {
	l := &coordinationv1.Lease{}
	err := c.get(ctx, leases, namespace, lease, l)
	switch {
	case apierrors.IsNotFound(err):
		return "the formation's Lease " + lease + " is gone", nil
	case err != nil:
		return "", err
	case LeaseExpired(l, time.Now()):
		return "the formation's Lease " + lease + " expired: its launcher stopped renewing it", nil
	}
	return "", nil
}

// AwaitLeaseEnd reads the formation's Lease every poll until it has ended
// and returns why, or ctx's cause. A read that fails is retried.
func (c *Client) AwaitLeaseEnd(ctx context.Context, namespace, lease string, poll time.Duration) (string, error) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if why, err := c.LeaseEnded(ctx, namespace, lease); err == nil && why != "" {
			return why, nil
		}
		select {
		case <-ctx.Done():
			return "", context.Cause(ctx)
		case <-t.C:
		}
	}
}
