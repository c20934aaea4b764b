package client_test

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

// serveDoor serves a public mur door on a loopback port until stop.
func serveDoor() (url string, stop func()) {
	reg, err := tasktable.New(tasktable.Config{Acceptance: tasktable.ModeQueue, QueueDepth: 4})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	url = "http://" + ln.Addr().String()
	d, err := door.New(door.Config{Registry: reg, Acceptance: tasktable.ModeQueue,
		Card: agentcard.Config{Name: "coder", Version: "1.2.0", URL: url}, SessionID: "ses_019a0000000070008000000000000001"})
	if err != nil {
		panic(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve(ln) }()
	return url, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = d.Shutdown(ctx)
		<-served
		reg.Close(true)
	}
}

// A client sends a message to a door, reads the task back, and tells a
// door that did not answer from one that refused.
func ExampleClient_SendMessage() {
	url, stop := serveDoor()
	defer stop()
	ctx := context.Background()

	c, err := client.New(client.Config{BaseURL: url, RequestTimeout: 5 * time.Second})
	if err != nil {
		panic(err)
	}
	resp, err := c.SendMessage(ctx, a2a.SendMessageRequest{
		Message:       a2a.Message{MessageID: "m-1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil {
		panic(err)
	}
	got, err := c.GetTask(ctx, a2a.GetTaskRequest{ID: resp.Task.ID})
	if err != nil {
		panic(err)
	}
	fmt.Println(got.Status.State, got.ID == resp.Task.ID)

	_, err = c.GetTask(ctx, a2a.GetTaskRequest{ID: "tsk_unknown"})
	fmt.Println(client.IsNoAnswer(err), err != nil)

	// Nothing listens on a port just closed: no answer, and why.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	gone, _ := client.New(client.Config{BaseURL: closed})
	_, err = gone.Card(ctx)
	fmt.Println(client.IsNoAnswer(err), client.Classify(err))
	// Output:
	// TASK_STATE_SUBMITTED true
	// false true
	// true connection refused
}
