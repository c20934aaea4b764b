package door_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// A door answers A2A from a session's task table: here a public door on a
// loopback port takes a message, which waits in the table as a submitted
// task until the runtime pulls it.
func ExampleNew() {
	reg, err := tasktable.New(tasktable.Config{Acceptance: tasktable.ModeQueue, QueueDepth: 4})
	if err != nil {
		panic(err)
	}
	defer reg.Close(true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	url := "http://" + ln.Addr().String()
	d, err := door.New(door.Config{
		Registry:   reg,
		Card:       agentcard.Config{Name: "coder", Version: "1.2.0", URL: url},
		Acceptance: tasktable.ModeQueue,
		SessionID:  "ses_019a0000000070008000000000000001",
	})
	if err != nil {
		panic(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve(ln) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = d.Shutdown(ctx)
		<-served
	}()

	ctx := context.Background()
	c, err := client.New(client.Config{BaseURL: url})
	if err != nil {
		panic(err)
	}
	card, err := c.Card(ctx)
	if err != nil {
		panic(err)
	}
	resp, err := c.SendMessage(ctx, a2a.SendMessageRequest{
		Message:       a2a.Message{MessageID: "m-1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("review main.go")}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(card.Name, card.Version)
	fmt.Println(resp.Task.Status.State)
	// Output:
	// coder 1.2.0
	// TASK_STATE_SUBMITTED
}
