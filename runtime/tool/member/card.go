package member

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/agentcard"
)

// cardChecks remembers the callee doors whose cards verified, so that each
// is fetched once per member session.
type cardChecks struct {
	mu sync.Mutex
	ok map[string]bool
}

// maxCard bounds a callee's card as the member reads it.
const maxCard = 1 << 20

// checkCard checks, before the first call to member's door at url, that its
// Agent Card is signed with the formation's card key (A2A §8.4.3); it
// returns the tool error's text when it is not, "" when it is or when there
// is no key to check with. A card that could not be read is refused too: a
// door that will not show its card is not trusted with a task.
func (c *Config) checkCard(ctx context.Context, member, url string) string {
	if c.CardKey == nil {
		return ""
	}
	c.cards.mu.Lock()
	done := c.cards.ok[url]
	c.cards.mu.Unlock()
	if done {
		return ""
	}
	card, err := c.fetchCard(ctx, url)
	if err == nil {
		_, err = agentcard.Verify(card, c.CardKey)
	}
	if err != nil {
		return outputCardRefused(member, url, c.Formation, err.Error())
	}
	c.cards.mu.Lock()
	c.cards.ok[url] = true
	c.cards.mu.Unlock()
	return ""
}

func (c *Config) fetchCard(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timing.Request)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(url, "/")+a2a.WellKnownCardPath, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("its card could not be fetched: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxCard))
	if err != nil {
		return nil, fmt.Errorf("its card could not be read: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("its card answered HTTP %d", resp.StatusCode)
	}
	return b, nil
}
