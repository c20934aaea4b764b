package peerfile

import (
	"net"
	"net/http"
	"time"
)

// Timeouts of the plane's outgoing requests. A body has none of its own: a
// fetch lasts as long as its bytes take, bounded by the call's context.
const (
	dialTimeout   = 10 * time.Second
	headerTimeout = 30 * time.Second
	cardTimeout   = 10 * time.Second // share-file's whole card fetch
)

// NewClient is the one place the plane's outgoing HTTP client is built —
// share-file's card fetch and fetch-peer-file's redeem both go through it:
// no proxy (the allow lists name the peer itself, and a proxy would see the
// handle), no redirect followed (one could leave the allow list), bounded
// dials and response headers.
func NewClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           (&net.Dialer{Timeout: dialTimeout}).DialContext,
			ResponseHeaderTimeout: headerTimeout,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
