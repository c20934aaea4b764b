package spawn

import (
	"crypto/ed25519"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/murmur-go/mur/agentcard"
)

// A child's card must verify with the spawner's card key before its task is
// handed over (A2A §8.4): signed with it passes; re-signed with another key,
// unsigned or missing does not.
func TestCheckCard(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(nil)
	_, other, _ := ed25519.GenerateKey(nil)
	card := []byte(`{"name":"child","version":"1"}`)
	sign := func(k ed25519.PrivateKey) []byte {
		b, err := agentcard.Sign(card, k, agentcard.KeyID(agentcard.OperatorKeyPrefix, k.Public().(ed25519.PublicKey)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	h := &Hub{cfg: Config{CardKey: pub, Timing: DefaultTiming()}}
	for name, tc := range map[string]struct {
		body []byte
		want error
	}{
		"signed by the spawner's key": {sign(key), nil},
		"re-signed with another key":  {sign(other), agentcard.ErrNotVerified},
		"unsigned":                    {card, agentcard.ErrUnsigned},
		"no card":                     {nil, errors.New("HTTP 404")},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.body == nil {
					http.NotFound(w, nil)
					return
				}
				_, _ = w.Write(tc.body)
			}))
			defer srv.Close()
			err := h.checkCard(t.Context(), srv.URL)
			switch {
			case tc.want == nil && err != nil:
				t.Errorf("checkCard = %v, want nil", err)
			case tc.want != nil && err == nil:
				t.Errorf("checkCard = nil, want %v", tc.want)
			case tc.want != nil && !errors.Is(err, tc.want) && err.Error() != "its card answered HTTP 404":
				t.Errorf("checkCard = %v, want %v", err, tc.want)
			}
		})
	}
	if err := (&Hub{}).checkCard(t.Context(), "http://127.0.0.1:1"); err != nil {
		t.Errorf("checkCard without a key = %v, want nil", err)
	}
}
