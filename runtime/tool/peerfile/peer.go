package peerfile

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/peerplane"
)

// peerBase reads a tool's peer (PFILE-2, PFILE-4): host:port, or an
// http(s) URL without path, query, fragment or user. It returns the base
// URL, scheme://host:port.
func peerBase(peer string) (string, bool) {
	e, err := manifest.ParseAllowEntry(strings.TrimSuffix(peer, "/"))
	if err != nil {
		return "", false
	}
	scheme := e.Scheme
	if scheme == "" {
		if e.Port == 0 {
			return "", false // a bare host names no door
		}
		scheme = "http"
	}
	return scheme + "://" + net.JoinHostPort(e.Host, strconv.Itoa(e.Port)), true
}

// hostPort is a door URL's host:port, the port filled from the scheme.
func hostPort(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port), true
}

// audienceOf fetches the peer's public card (GET
// /.well-known/agent-card.json) and returns its audience, "<card
// name>@<host:port of its JSON-RPC interface>", lowercased (PFILE-2).
func (p *Plane) audienceOf(ctx context.Context, base string) (string, error) {
	c, err := client.New(client.Config{BaseURL: base, HTTPClient: p.cfg.Client, RequestTimeout: cardTimeout})
	if err != nil {
		return "", err
	}
	card, err := c.Card(ctx)
	if err != nil {
		return "", fmt.Errorf("its agent card could not be read: %w", unwrapURL(err))
	}
	var doorURL string
	for _, in := range card.SupportedInterfaces {
		if doorURL == "" || in.ProtocolBinding == a2a.BindingJSONRPC {
			doorURL = in.URL
		}
	}
	hp, ok := hostPort(doorURL)
	if card.Name == "" || !ok {
		return "", errors.New("its agent card names no capsule or no http(s) interface URL")
	}
	return peerplane.Audience(card.Name, hp), nil
}

// unwrapURL drops a *url.Error's method and URL: a redeem's URL holds the
// handle, which no reason may carry.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
