package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	id    string // the id field, "" when the event carried none
	event string // the event field, "" when absent
	data  string // data lines joined with "\n"
}

// readSSE yields the events of an event stream (WHATWG HTML §9.2.6): lines end
// in "\n" or "\r\n"; a blank line dispatches; comment lines (":heartbeat",
// door.md SSE-4) are skipped; an event with no data is not dispatched, nor is
// one cut off by the end of the stream. A line or event over max bytes ends
// with ErrResponseTooLarge; a read error is yielded as it is.
func readSSE(r io.Reader, max int64) iter.Seq2[sseEvent, error] {
	return func(yield func(sseEvent, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 4096), int(max))
		var ev sseEvent
		var data strings.Builder
		hasData := false
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				if hasData {
					ev.data = data.String()
					if !yield(ev, nil) {
						return
					}
				}
				ev, hasData = sseEvent{}, false
				data.Reset()
				continue
			}
			if strings.HasPrefix(line, ":") {
				continue
			}
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "data":
				if hasData {
					data.WriteByte('\n')
				}
				data.WriteString(value)
				hasData = true
				if int64(data.Len()) > max {
					yield(sseEvent{}, ErrResponseTooLarge)
					return
				}
			case "event":
				ev.event = value
			case "id":
				if !strings.ContainsRune(value, 0) {
					ev.id = value
				}
			}
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = ErrResponseTooLarge
			}
			yield(sseEvent{}, err)
		}
	}
}

// openStream posts a JSON-RPC request that answers with an event stream. It
// returns the response (status 200, Content-Type text/event-stream) or the
// error the door answered instead: an *HTTPError, the *a2a.Error of a plain
// JSON-RPC body (door.md METH-SS-1: refusals come before any stream byte), or
// a *NoAnswerError. The request timeout covers only the wait for headers.
func (c *Client) openStream(ctx, sctx context.Context, cancel context.CancelCauseFunc, method string, id int64,
	params any, cc *callConfig) (*http.Response, error) {
	body, err := encodeRequest(id, method, params)
	if err != nil {
		return nil, err
	}
	req, err := c.newRequest(sctx, http.MethodPost, "/", body, "text/event-stream", cc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	var timer *time.Timer
	if cc.timeout > 0 {
		timer = time.AfterFunc(cc.timeout, func() { cancel(errRequestTimeout) })
	}
	resp, err := c.hc.Do(req)
	if timer != nil && !timer.Stop() && err == nil {
		resp.Body.Close()
		err = errRequestTimeout
	}
	if err != nil {
		return nil, noAnswer(ctx, sctx, method, err)
	}
	if resp.StatusCode == http.StatusOK && mediaType(resp) == "text/event-stream" {
		return resp, nil
	}
	defer resp.Body.Close()
	b, err := readBounded(resp.Body, c.max)
	if err != nil && !errors.Is(err, ErrResponseTooLarge) {
		return nil, noAnswer(ctx, sctx, method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, newHTTPError(resp, b)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if _, err := decodeResponse(id, b); err != nil {
		var ae *a2a.Error
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return nil, fmt.Errorf("%s: %w: a result instead of an event stream (Content-Type %q)",
		method, ErrBadResponse, resp.Header.Get("Content-Type"))
}

func mediaType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt
}

// SendStreamingMessage sends a message and yields the task's stream events
// (door.md METH-SS, SSE-1..3): first the task, then status and artifact
// updates, until the door closes the stream after a terminal or
// INPUT_REQUIRED status. A JSON-RPC error, before or inside the stream, is
// yielded once as an *a2a.Error and ends the sequence.
func (c *Client) SendStreamingMessage(ctx context.Context, req a2a.SendMessageRequest, opts ...CallOption) iter.Seq2[a2a.StreamResponse, error] {
	return c.rpcStream(ctx, a2a.MethodSendStreamingMessage, req, opts)
}

// SubscribeToTask yields a live task's stream events (door.md METH-ST): the
// task as it stands, then its updates, until its next terminal or
// INPUT_REQUIRED status. An ended task is a2a.ErrUnsupportedOperation.
func (c *Client) SubscribeToTask(ctx context.Context, req a2a.SubscribeToTaskRequest, opts ...CallOption) iter.Seq2[a2a.StreamResponse, error] {
	return c.rpcStream(ctx, a2a.MethodSubscribeToTask, req, opts)
}

func (c *Client) rpcStream(ctx context.Context, method string, params any, opts []CallOption) iter.Seq2[a2a.StreamResponse, error] {
	return func(yield func(a2a.StreamResponse, error) bool) {
		cc := c.callConfig(opts)
		id := c.nextID.Add(1)
		sctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		resp, err := c.openStream(ctx, sctx, cancel, method, id, params, cc)
		if err != nil {
			yield(a2a.StreamResponse{}, err)
			return
		}
		defer resp.Body.Close()
		for ev, err := range readSSE(resp.Body, c.max) {
			if err != nil {
				yield(a2a.StreamResponse{}, c.streamErr(ctx, sctx, method, err))
				return
			}
			raw, err := decodeResponse(id, []byte(ev.data))
			if err != nil {
				var ae *a2a.Error
				if !errors.As(err, &ae) {
					err = fmt.Errorf("%s: stream event: %w", method, err)
				}
				yield(a2a.StreamResponse{}, err)
				return
			}
			var sr a2a.StreamResponse
			if err := decodeResult(method, raw, &sr); err != nil {
				yield(a2a.StreamResponse{}, err)
				return
			}
			if !yield(sr, nil) {
				return
			}
		}
	}
}

// streamErr classifies an error met while reading a stream's body.
func (c *Client) streamErr(parent, sctx context.Context, method string, err error) error {
	if errors.Is(err, ErrResponseTooLarge) {
		return fmt.Errorf("%s: %w", method, err)
	}
	return noAnswer(parent, sctx, method, err)
}

// Watch opens the murmur observer stream stream/watch (door.md SSE-6..9) and
// yields its frames: connection-ack, the replay after lastEventID (0 sends no
// Last-Event-ID header), then live frames until capsule-closed or the door
// closes. Heartbeats are skipped. A JSON-RPC refusal is yielded as an *a2a.Error.
func (c *Client) Watch(ctx context.Context, lastEventID uint64, opts ...CallOption) iter.Seq2[a2a.WatchFrame, error] {
	return func(yield func(a2a.WatchFrame, error) bool) {
		cc := c.callConfig(opts)
		if lastEventID > 0 {
			cc.header.Set(a2a.HeaderLastEventID, strconv.FormatUint(lastEventID, 10))
		}
		id := c.nextID.Add(1)
		sctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		resp, err := c.openStream(ctx, sctx, cancel, a2a.MethodStreamWatch, id, struct{}{}, cc)
		if err != nil {
			yield(a2a.WatchFrame{}, err)
			return
		}
		defer resp.Body.Close()
		for ev, err := range readSSE(resp.Body, c.max) {
			if err != nil {
				yield(a2a.WatchFrame{}, c.streamErr(ctx, sctx, a2a.MethodStreamWatch, err))
				return
			}
			f := a2a.WatchFrame{Event: ev.event, Data: []byte(ev.data)}
			if ev.id != "" {
				n, err := strconv.ParseUint(ev.id, 10, 64)
				if err != nil {
					yield(a2a.WatchFrame{}, fmt.Errorf("%s: %w: frame id %q", a2a.MethodStreamWatch, ErrBadResponse, ev.id))
					return
				}
				f.ID = n
			}
			if f.Event == "" {
				// Every frame names its type (SSE-7); a data-only event is a
				// door failure after the stream started: one JSON-RPC error (SSE-2).
				_, err := decodeResponse(id, f.Data)
				if err == nil {
					err = fmt.Errorf("%w: a frame without an event type", ErrBadResponse)
				}
				var ae *a2a.Error
				if !errors.As(err, &ae) {
					err = fmt.Errorf("%s: %w", a2a.MethodStreamWatch, err)
				}
				yield(a2a.WatchFrame{}, err)
				return
			}
			if !yield(f, nil) {
				return
			}
		}
	}
}
