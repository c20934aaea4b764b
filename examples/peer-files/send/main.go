// Command send gives one capsule door one task over A2A (SendMessage,
// waiting for the answer) and prints the answer's text, or, with -field, one
// string field of the JSON object the answer is. examples/peer-files/run.sh
// is the operator relaying a handle between two capsules with it.
//
//	send [-token T] [-field name] <door url> <task text>
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
)

func main() {
	token := flag.String("token", "", "a door token, for an authenticated door")
	field := flag.String("field", "", "print this string field of the JSON answer instead of the answer")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: send [-token T] [-field name] <door url> <task text>")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *token, *field); err != nil {
		fmt.Fprintln(os.Stderr, "send:", err)
		os.Exit(1)
	}
}

func run(url, text, token, field string) error {
	c, err := client.New(client.Config{BaseURL: url, Token: token})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := c.SendMessage(ctx, a2a.SendMessageRequest{Message: a2a.Message{
		MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}})
	if err != nil {
		return err
	}
	t := resp.Task
	if t == nil || t.Status.State != a2a.TaskStateCompleted || t.Artifact(a2a.ArtifactResponse) == nil {
		return fmt.Errorf("the task did not complete: %+v", t)
	}
	answer := a2a.Text(t.Artifact(a2a.ArtifactResponse).Parts)
	if field == "" {
		fmt.Println(answer)
		return nil
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(answer), &obj); err != nil {
		return fmt.Errorf("the answer is not a JSON object: %s", answer)
	}
	v, ok := obj[field].(string)
	if !ok {
		return fmt.Errorf("the answer has no string %q: %s", field, answer)
	}
	fmt.Println(v)
	return nil
}
