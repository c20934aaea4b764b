package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// pipeTransport serves requests with h in-process over an io.Pipe, so tests
// run inside a synctest bubble with its fake clock.
type pipeTransport struct{ h http.Handler }

type pipeWriter struct {
	header http.Header
	pw     *io.PipeWriter
	once   sync.Once
	status int
	ready  chan struct{} // closed once the status is set
}

func (p *pipeWriter) Header() http.Header { return p.header }
func (p *pipeWriter) WriteHeader(code int) {
	p.once.Do(func() { p.status = code; close(p.ready) })
}
func (p *pipeWriter) Write(b []byte) (int, error) { p.WriteHeader(http.StatusOK); return p.pw.Write(b) }
func (p *pipeWriter) Flush()                      { p.WriteHeader(http.StatusOK) }

func (t pipeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	rw := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() {
		t.h.ServeHTTP(rw, req)
		rw.WriteHeader(http.StatusOK)
		pw.Close()
	}()
	select {
	case <-rw.ready:
		return &http.Response{StatusCode: rw.status, Header: rw.header, Body: pr, Request: req}, nil
	case <-req.Context().Done():
		pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
}

// The request timeout covers a stream only until its headers arrive: a task
// that runs longer than 5 s still streams (tools.md CALL-5's 5 s per request).
func TestStreamTimeoutCoversHeadersOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeStream(w, event("1", `{"task":`+taskJSON+`}`))
			select {
			case <-time.After(time.Minute):
			case <-r.Context().Done():
				return
			}
			writeStream(w, event("1", `{"statusUpdate":{"taskId":"tsk_1","contextId":"ctx_1","status":{"state":"TASK_STATE_COMPLETED"}}}`))
		})
		c := mustNew(t, Config{BaseURL: "http://door", HTTPClient: &http.Client{Transport: pipeTransport{h}},
			RequestTimeout: 5 * time.Second})
		var n int
		for _, err := range c.SubscribeToTask(context.Background(), a2a.SubscribeToTaskRequest{ID: "tsk_1"}) {
			if err != nil {
				t.Fatalf("SubscribeToTask() error = %v", err)
			}
			n++
		}
		if n != 2 {
			t.Errorf("events = %d, want 2", n)
		}
	})
}

// No headers within the timeout: the door did not answer.
func TestStreamTimeoutBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		})
		c := mustNew(t, Config{BaseURL: "http://door", HTTPClient: &http.Client{Transport: pipeTransport{h}},
			RequestTimeout: 5 * time.Second})
		start := time.Now()
		var errs []error
		for _, err := range c.Watch(context.Background(), 0) {
			errs = append(errs, err)
		}
		if len(errs) != 1 || !IsNoAnswer(errs[0]) || !errors.Is(errs[0], errRequestTimeout) {
			t.Fatalf("Watch() errors = %v, want one no-answer timeout", errs)
		}
		if d := time.Since(start); d != 5*time.Second { // the bubble's fake clock
			t.Errorf("gave up after %v, want exactly the 5s timeout", d)
		}
	})
}

// A unary call's timeout covers the whole answer, also a blocking SendMessage.
func TestUnaryTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		})
		c := mustNew(t, Config{BaseURL: "http://door", HTTPClient: &http.Client{Transport: pipeTransport{h}},
			RequestTimeout: 5 * time.Second})
		_, err := c.SendMessage(context.Background(), a2a.SendMessageRequest{})
		if !IsNoAnswer(err) || !errors.Is(err, errRequestTimeout) {
			t.Errorf("SendMessage() error = %v, want a no-answer timeout", err)
		}
	})
}
