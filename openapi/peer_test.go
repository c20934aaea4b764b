package openapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/peerplane"
)

// plane is a door.PeerFiles that serves "the report\n" for the handle
// "good" and refuses every other with the refusal its name picks.
type plane struct{}

func (plane) Redeem(_ context.Context, req peerplane.Request) (*peerplane.File, error) {
	switch req.Handle {
	case "good":
		body := "the report\n"
		sum := sha256.Sum256([]byte(body))
		return &peerplane.File{Body: strings.NewReader(body), Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:]),
			HandleID: peerplane.ID(req.Handle), Generation: 2, ModTime: time.Now(), Done: func(int64, error) {}}, nil
	case "malformed":
		return nil, peerplane.MalformedHandle()
	case "forged":
		return nil, peerplane.HandleNotValid()
	case "expired":
		return nil, peerplane.HandleExpired(time.Now())
	case "large":
		return nil, peerplane.TooLarge(11, 10)
	case "gone":
		return nil, peerplane.NotFound()
	}
	return nil, peerplane.IOError()
}

// Real answers of the peer route validate against the document, on a
// public and an authenticated door, with and without the plane (PFILE-5).
func TestPeerAnswersValidate(t *testing.T) {
	t.Parallel()
	d := loadDocument(t)
	const path = "/resources/peer/{handle}"
	for _, auth := range []bool{false, true} {
		td := newDoor(t, doorOpts{auth: auth, peer: plane{}})
		for _, h := range []string{"good", "malformed", "forged", "expired", "large", "gone", "other"} {
			a := td.do(t, http.MethodGet, "/resources/peer/"+h, "", nil, "x-murmur-audience: fetcher@127.0.0.1:1")
			d.exchange(t, h, http.MethodGet, path, a.status, a.header, a.body)
			if h != "good" {
				continue
			}
			if !regexp.MustCompile(`^"sha256:[0-9a-f]{64}"$`).MatchString(a.header.Get("Etag")) ||
				!regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(a.header.Get("x-murmur-handle-id")) {
				t.Errorf("200 headers = %v", a.header)
			}
		}
		a := td.do(t, http.MethodGet, "/resources/peer/", "", nil)
		d.exchange(t, "no handle", http.MethodGet, path, a.status, a.header, a.body)
		a = td.do(t, http.MethodPut, "/resources/peer/good", td.tokens["operator"], nil)
		if a.status != 405 || a.header.Get("Allow") != "GET" {
			t.Errorf("PUT = %d allow %q", a.status, a.header.Get("Allow"))
		}
		d.exchange(t, "PUT", http.MethodGet, path, a.status, a.header, a.body)
	}
	for _, auth := range []bool{false, true} {
		td := newDoor(t, doorOpts{auth: auth})
		a := td.do(t, http.MethodGet, "/resources/peer/good", "", nil)
		d.exchange(t, "undeclared", http.MethodGet, path, a.status, a.header, a.body)
		if want := map[bool]int{false: 404, true: 401}[auth]; a.status != want {
			t.Errorf("undeclared, authenticated %v: %d, want %d", auth, a.status, want)
		}
	}
}
