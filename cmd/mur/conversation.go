package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/murmur-go/mur/runtime/conversation"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/murhome"
)

// cmdConversation is `mur conversation ls | show | rm`: the conversation
// records under $MURMUR_HOME/conversations.
var cmdConversation = &command{
	name:    "conversation",
	summary: "list, show or remove conversation records (mur run --resume continues them)",
	run:     runConversation,
}

const conversationUsage = `Usage: mur conversation ls [--json]
       mur conversation show <store>/<context> [--json]
       mur conversation rm <store>/<context>

The conversation records mur run keeps (context.record: on), one per
record store (context.record_store, default the capsule's name) and A2A
context, under $MURMUR_HOME/conversations/. ls lists them; show prints one
record's messages in order; rm removes one. --json prints one JSON document
instead (docs/json.md).`

// conversationLsJSON is mur conversation ls --json.
type conversationLsJSON struct {
	Records []conversationRecordJSON `json:"records"`
}

type conversationRecordJSON struct {
	Store     string `json:"store"`
	Context   string `json:"context"`
	Messages  int    `json:"messages"`
	WrittenAt string `json:"written_at"`
	Path      string `json:"path"`
}

// conversationShowJSON is mur conversation show --json.
type conversationShowJSON struct {
	Store    string               `json:"store"`
	Context  string               `json:"context"`
	Messages []conversation.Entry `json:"messages"`
}

func runConversation(_ context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("conversation", flag.ContinueOnError)
	jsonOut := fs.Bool("json", false, "print one JSON document (docs/json.md)")
	if len(args) == 0 {
		return usageError(env, "conversation", "missing subcommand: mur conversation ls, show or rm")
	}
	sub := args[0]
	switch sub {
	case "-h", "--help", "help":
		printUsage(env.Stdout, conversationUsage, fs)
		return 0
	case "ls", "show", "rm":
	default:
		return usageError(env, "conversation", unknownWord("subcommand", sub, []string{"ls", "show", "rm"}))
	}
	name := "conversation " + sub
	pos, code, done := parseInterspersed(env, name, conversationUsage, fs, args[1:])
	if done {
		return code
	}
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return fail(env, name, err)
	}
	if sub == "ls" {
		if len(pos) > 0 {
			return usageError(env, name, fmt.Sprintf("unexpected argument '%s'", pos[0]))
		}
		return conversationLs(env, home, *jsonOut)
	}
	if len(pos) != 1 {
		return usageError(env, name, "name one record: <store>/<context>")
	}
	store, ctx, ok := strings.Cut(pos[0], "/")
	if !ok || store == "" || ctx == "" || strings.ContainsAny(ctx, "/") || store == "." || store == ".." || ctx == "." || ctx == ".." {
		return usageError(env, name, fmt.Sprintf("'%s' is not <store>/<context>", pos[0]))
	}
	dir := conversation.ContextDir(home, store, ctx)
	path := filepath.Join(dir, conversation.File)
	if _, err := os.Stat(path); errors.Is(err, iofs.ErrNotExist) {
		return fail(env, name, fmt.Errorf("no conversation record %s/%s (%s)", store, ctx, path))
	}
	if sub == "rm" {
		if *jsonOut {
			return usageError(env, name, "rm does not take --json")
		}
		if err := os.RemoveAll(dir); err != nil {
			return fail(env, name, err)
		}
		fmt.Fprintf(env.Stdout, "removed %s/%s\n", store, ctx)
		return 0
	}
	es, err := conversation.Read(path)
	if err != nil {
		return fail(env, name, err)
	}
	if *jsonOut {
		doc := conversationShowJSON{Store: store, Context: ctx, Messages: es}
		if doc.Messages == nil {
			doc.Messages = []conversation.Entry{}
		}
		if err := writeJSON(env.Stdout, doc); err != nil {
			return fail(env, name, err)
		}
		return 0
	}
	for _, e := range es {
		if e.Kind == conversation.KindCompaction {
			fmt.Fprintf(env.out(), "%s  %-9s  %s  replaces from %s with %d messages\n", e.At, e.Kind, e.ID, e.Replaces, len(e.Messages))
			continue
		}
		fmt.Fprintf(env.out(), "%s  %-9s  %s  %s\n", e.At, e.Role, e.ID, blocksText(e.Blocks))
	}
	return 0
}

func conversationLs(env *Env, home string, jsonOut bool) int {
	infos, err := conversation.List(home)
	if err != nil {
		return fail(env, "conversation ls", err)
	}
	doc := conversationLsJSON{Records: []conversationRecordJSON{}}
	for _, in := range infos {
		doc.Records = append(doc.Records, conversationRecordJSON{Store: in.Store, Context: in.Context, Messages: in.Messages,
			WrittenAt: in.Written.UTC().Format(time.RFC3339), Path: filepath.Join(conversation.RecordDir(home, in.Store), in.Context, conversation.File)})
	}
	if jsonOut {
		if err := writeJSON(env.Stdout, doc); err != nil {
			return fail(env, "conversation ls", err)
		}
		return 0
	}
	if len(infos) == 0 {
		fmt.Fprintf(env.out(), "no conversation records in %s\n", filepath.Join(home, "conversations"))
		return 0
	}
	tw := tabwriter.NewWriter(env.out(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RECORD\tMESSAGES\tWRITTEN")
	for _, r := range doc.Records {
		fmt.Fprintf(tw, "%s/%s\t%d\t%s\n", r.Store, r.Context, r.Messages, r.WrittenAt)
	}
	_ = tw.Flush()
	return 0
}

// blocksText is a message's blocks on one line: text, tool calls by name,
// tool results by the call they answer, each cut to 80 characters.
func blocksText(bs []driver.Block) string {
	var parts []string
	for _, b := range bs {
		var s string
		switch b.Type {
		case driver.BlockText:
			s = b.Text
		case driver.BlockToolUse:
			s = fmt.Sprintf("[tool_use %s %s]", b.Name, b.Input)
		case driver.BlockToolResult:
			s = fmt.Sprintf("[tool_result %s] %s", b.ToolUseID, b.Content)
		}
		s = strings.Join(strings.Fields(s), " ")
		if r := []rune(s); len(r) > 80 {
			s = string(r[:79]) + "…"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}
