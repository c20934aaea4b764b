package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/driver/scripted"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/tool/status"
)

// benchConversation is a task of tool turns holding about tokens tokens
// (ceil(bytes/4)).
func benchConversation(tokens int) []driver.Message {
	msgs := []driver.Message{{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock("list numbers")}}}
	chunk := strings.Repeat("0123456789\n", 370) // ~1k tokens
	for i := 0; i < tokens/1000; i++ {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			driver.Message{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleAssistant, Blocks: []driver.Block{driver.ToolUseBlock(id, "bash", []byte(`{"command":"seq 1 1000"}`))}},
			driver.Message{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleUser, Blocks: []driver.Block{driver.ToolResultBlock(id, chunk, false)}})
	}
	return msgs
}

// BenchmarkCompactCheck is the compaction check's cost per turn under the
// threshold (every turn but a compacting one), against a scripted turn's
// driver call on the same conversation (the baseline).
func BenchmarkCompactCheck(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		msgs := benchConversation(n)
		s := &Session{m: &manifest.Manifest{Inference: &manifest.Inference{MaxTokens: 8192, Compaction: manifest.Compaction{Threshold: manifest.DefaultCompactionThreshold}}}}
		s.stats.lastContext = &status.ContextInfo{UsedTokens: int64(n), WindowTokens: 1 << 20, BudgetTokens: 1<<20 - 8192, BudgetBasis: driver.BasisWindowLessCap}
		t := &taskRun{s: s, msgs: msgs}
		b.Run(fmt.Sprintf("check/%dk", n/1000), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, ended := t.compactCheck(context.Background(), 1); ended {
					b.Fatal("ended")
				}
			}
		})
		script, err := scripted.Parse("s.yaml", []byte("script_version: 1\nrules:\n  - match: {always: true}\n    repeat: true\n    turns: [{text: done}]\n"))
		if err != nil {
			b.Fatal(err)
		}
		d := scripted.New(script)
		req := &driver.Request{Model: "m", System: "[Capsule]", Messages: msgs, MaxTokens: 8192}
		b.Run(fmt.Sprintf("scripted-turn/%dk", n/1000), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := d.Complete(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
