package driver

import "github.com/murmur-go/mur/a2a"

// EstimateTokens is DRV-8's estimate for n bytes: ceil(n/4).
func EstimateTokens(n int) int64 {
	if n <= 0 {
		return 0
	}
	return int64((n + 3) / 4)
}

// EstimateInput is the runtime's input-token estimate for req before it is
// sent (LOOP-18 admission): DRV-8 over the body d would send, or over the
// neutral request's JSON when d is not an Encoder.
func EstimateInput(d Driver, req *Request) (int64, error) {
	body, err := encode(d, req)
	if err != nil {
		return 0, err
	}
	return EstimateTokens(len(body)), nil
}

func encode(d Driver, req *Request) ([]byte, error) {
	if e, ok := d.(Encoder); ok {
		return e.Encode(req)
	}
	return a2a.Marshal(req)
}

// EstimatedInputTokens is inference.input_tokens for this reply (DRV-8):
// ceil(len(RequestBody)/4).
func (r *Response) EstimatedInputTokens() int64 { return EstimateTokens(len(r.RequestBody)) }

// EstimatedOutputTokens is inference.output_tokens for this reply (DRV-8):
// ceil(bytes/4) of its text plus its tool inputs.
func (r *Response) EstimatedOutputTokens() int64 {
	n := 0
	for _, b := range r.Blocks {
		switch b.Type {
		case BlockText:
			n += len(b.Text)
		case BlockToolUse:
			n += len(b.Input)
		}
	}
	return EstimateTokens(n)
}
