package conformance_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/murmur-go/mur/agentcard"
	"github.com/murmur-go/mur/conformance"
	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/internal/doortest"
	"github.com/murmur-go/mur/runtime/tasktable"
)

// The suite judges any door by its URL: here a public mur door whose tasks
// a scripted executor answers "ok", holding those whose text is "hold"
// until they are canceled, so the checks that need a live task run too.
func ExampleRun() {
	reg, err := tasktable.New(tasktable.Config{Acceptance: tasktable.ModeQueue, QueueDepth: 64})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	url := "http://" + ln.Addr().String()
	d, err := door.New(door.Config{Registry: reg, Acceptance: tasktable.ModeQueue, SessionID: "ses_019a0000000070008000000000000001",
		Card: agentcard.Config{Name: "conformer", Version: "0.1.0", URL: url}})
	if err != nil {
		panic(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve(ln) }()
	ex := doortest.Start(reg, doortest.Script{Hold: "hold", Answer: doortest.Answers("ok")}.Execute)
	defer func() {
		ex.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = d.Shutdown(ctx)
		<-served
	}()

	results := conformance.Run(context.Background(), conformance.Config{URL: url, SlowTaskText: "hold"})
	for _, r := range results {
		if r.ID == "card.fetch" {
			fmt.Println(r.ID, r.Status)
		}
	}
	fmt.Println("failed:", conformance.Tally(results).Failed) // what `mur conformance` exits 1 on
	// Output:
	// card.fetch PASS
	// failed: 0
}
