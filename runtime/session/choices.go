package session

import (
	"sync"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/manifest"
)

// choices is the session's driver choices and the current one (DRV-2,
// SWD-2). It satisfies switchdriver.Switcher.
type choices struct {
	blocks  []manifest.DriverBlock
	drivers map[string]driver.Driver

	mu      sync.Mutex
	current string
	pending string // change id of a switch not yet used by a call ("" none)
}

func newChoices(m *manifest.Manifest, drivers map[string]driver.Driver) *choices {
	return &choices{blocks: m.Inference.Choices(), drivers: drivers, current: manifest.PrimaryChoice}
}

// Current names the choice serving the next agent inference call.
func (c *choices) Current() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current
}

// Switch makes name serve every later agent inference call (SWD-2).
func (c *choices) Switch(name, changeID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.current, c.pending = name, changeID
}

// take returns the choice for the next call, and the change id when this is
// the first call to use a switch (control_applied).
func (c *choices) take() (block manifest.DriverBlock, d driver.Driver, changeID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	changeID, c.pending = c.pending, ""
	for _, b := range c.blocks {
		if b.Name == c.current {
			return b, c.drivers[b.Name], changeID
		}
	}
	return c.blocks[0], c.drivers[c.blocks[0].Name], changeID
}

// primary returns the primary choice: compaction's summary call and a
// hook's run-inference use it whatever the agent switched to (SWD-2).
func (c *choices) primary() (manifest.DriverBlock, driver.Driver) {
	return c.blocks[0], c.drivers[c.blocks[0].Name]
}

// peek returns the choice the next call would use, leaving a pending
// switch for the agent's next turn (what a compaction's replacement is
// measured for).
func (c *choices) peek() (manifest.DriverBlock, driver.Driver) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.blocks {
		if b.Name == c.current {
			return b, c.drivers[b.Name]
		}
	}
	return c.blocks[0], c.drivers[c.blocks[0].Name]
}

// options reads a choice's DRV-10 config (context window, input ceiling).
func (c *choices) options(b manifest.DriverBlock) driver.Options {
	o, _ := driver.ParseOptions(b.Config)
	return o
}
