package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// stream is an open event stream as the door wrote it.
type stream struct {
	resp   *http.Response
	br     *bufio.Reader
	id     string // the request id, as JSON
	strict bool   // murmur door: nothing but data lines on A2A streams (SSE-2)
	rest   bool   // HTTP+JSON: each data line is the StreamResponse itself (A2A §11.7)
}

// openStream posts a streaming request. When the door answers a plain JSON
// body instead (a refusal before any stream byte), it returns that answer.
func (s *suite) openStream(ctx context.Context, method string, params any, h hdr) (*stream, *rpcAnswer, error) {
	st, ex, err := s.openRaw(ctx, method, params, h)
	if err != nil || st != nil {
		return st, nil, err
	}
	a, err := parseAnswer(ex)
	if err != nil {
		return nil, nil, fmt.Errorf("%s answered neither an event stream nor a JSON-RPC answer: %w", method, err)
	}
	return nil, a, nil
}

// openRaw posts a streaming request and returns the stream, or the whole
// answer when the door sent anything but a 200 event stream. Headers in h
// replace the defaults; a value of "" deletes one.
func (s *suite) openRaw(ctx context.Context, method string, params any, h hdr) (*stream, *exchange, error) {
	id := s.nextID()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/", bytes.NewReader(request(id, method, params)))
	if err != nil {
		return nil, nil, err
	}
	s.postHeaders(req)
	req.Header.Set("Accept", "text/event-stream")
	h.apply(req.Header)
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the door did not answer: %w", method, transportErr(err))
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode == http.StatusOK && mt == "text/event-stream" {
		return &stream{resp: resp, br: bufio.NewReaderSize(resp.Body, 64<<10), id: fmt.Sprint(id), strict: s.murmur}, nil, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading the answer: %w", method, err)
	}
	return nil, &exchange{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

func (st *stream) Close() { st.resp.Body.Close() }

// checkHeaders checks SSE-1: 200 and text/event-stream (openStream saw
// both); on a murmur door also Cache-Control no-cache and no Content-Length.
func (st *stream) checkHeaders() error {
	if !st.strict {
		return nil
	}
	if cc := st.resp.Header.Get("Cache-Control"); cc != "no-cache" {
		return failf("Cache-Control %q, want no-cache (SSE-1)", cc)
	}
	if cl := st.resp.Header.Get("Content-Length"); cl != "" {
		return failf("Content-Length %s on a stream, want none (SSE-1)", cl)
	}
	return nil
}

// errStreamEnd is returned by next when the door closed the stream between events.
var errStreamEnd = errors.New("the stream ended")

// event is one A2A stream event: a JSON-RPC response in one data line.
type event struct {
	result json.RawMessage
	resp   a2a.StreamResponse
	err    *wireError
}

// next reads the next event (door.md SSE-2): comment lines (":heartbeat",
// SSE-4) are skipped; an event is exactly one "data:" line holding one
// JSON-RPC response echoing the request id, then a blank line.
func (st *stream) next() (*event, error) {
	var data []string
	for {
		line, err := st.readLine()
		if err == io.EOF && len(data) == 0 {
			return nil, errStreamEnd
		}
		if err == io.EOF {
			return nil, failf("the stream ended inside an event")
		}
		if err != nil {
			return nil, err
		}
		switch {
		case line == "":
			if len(data) == 0 {
				continue
			}
			return st.parse(data)
		case strings.HasPrefix(line, ":"):
			continue
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case st.rest && line == "event: error":
			continue // the data is a google.rpc.Status (A2A §11.7)
		default:
			if st.strict {
				return nil, failf("stream line %q, want only data lines (SSE-2)", line)
			}
		}
	}
}

func (st *stream) parse(data []string) (*event, error) {
	if len(data) != 1 {
		return nil, failf("an event of %d data lines, want one (SSE-2)", len(data))
	}
	if st.rest {
		return st.parseREST([]byte(data[0]))
	}
	a, err := parseAnswer(&exchange{status: 200, header: http.Header{"Content-Type": {"application/json"}}, body: []byte(data[0])})
	if err != nil {
		return nil, failf("stream event: %v", err)
	}
	if err := a.expectID(st.id); err != nil {
		return nil, failf("stream event: %v", err)
	}
	if a.err != nil {
		return &event{err: a.err}, nil
	}
	if err := validate(a.result, streamResponseSpec, "event.result"); err != nil {
		return nil, failf("stream event: %v", err)
	}
	ev := &event{result: a.result}
	if err := json.Unmarshal(a.result, &ev.resp); err != nil {
		return nil, failf("stream event: %v", err)
	}
	return ev, nil
}

// parseREST reads an HTTP+JSON stream event: a StreamResponse, or an error
// event's google.rpc.Status, whose HTTP status stands in as its code.
func (st *stream) parseREST(data []byte) (*event, error) {
	var status struct {
		Error *struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &status) == nil && status.Error != nil && status.Error.Code != nil && status.Error.Message != nil {
		return &event{err: &wireError{Code: status.Error.Code, Message: status.Error.Message}}, nil
	}
	if err := validate(data, streamResponseSpec, "event"); err != nil {
		return nil, failf("stream event: %v", err)
	}
	ev := &event{result: data}
	if err := json.Unmarshal(data, &ev.resp); err != nil {
		return nil, failf("stream event: %v", err)
	}
	return ev, nil
}

// readLine reads one line without its "\n" or "\r\n".
func (st *stream) readLine() (string, error) {
	var b []byte
	for {
		chunk, err := st.br.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > maxBody {
			return "", failf("a stream line over %d bytes", maxBody)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(b) > 0 {
				return "", failf("the stream ended inside a line")
			}
			return "", err
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
	}
}

// frame is one stream/watch frame (SSE-7).
type frame struct {
	id    string // "" on unnumbered frames
	event string
	data  string
}

// nextFrame reads one stream/watch frame: optional id line, event line, one
// data line holding a one-line JSON object, blank line (door.md SSE-7).
func (st *stream) nextFrame() (*frame, error) {
	var f frame
	var lines int
	for {
		line, err := st.readLine()
		if err == io.EOF && lines == 0 {
			return nil, errStreamEnd
		}
		if err == io.EOF {
			return nil, failf("the stream ended inside a frame")
		}
		if err != nil {
			return nil, err
		}
		switch {
		case line == "" && lines == 0:
			continue
		case line == "":
			if f.event == "" {
				return nil, failf("a frame without an event line (SSE-7)")
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(f.data), &obj); err != nil {
				return nil, failf("frame %s data %q is not one JSON object", f.event, f.data)
			}
			return &f, nil
		case strings.HasPrefix(line, ":"):
			continue
		case strings.HasPrefix(line, "id: "):
			f.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			f.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if f.data != "" {
				return nil, failf("frame %s has more than one data line (SSE-7)", f.event)
			}
			f.data = strings.TrimPrefix(line, "data: ")
		default:
			return nil, failf("frame line %q, want id, event or data (SSE-7)", line)
		}
		lines++
	}
}
