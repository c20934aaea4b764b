package anthropic

import "testing"

// FuzzDecodeReply: any body gives a response or an error, never a panic, and
// every tool_use block has an id and an object input unless marked.
func FuzzDecodeReply(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"x","input":{"a":1}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4}}`,
		`{"type":"error","error":{"type":"x","message":"y"}}`,
		`{"content":[{"type":"tool_use","id":"t","name":"x","input":"s"}]}`,
		`{"content":null}`, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := decodeReply(body)
		if err != nil {
			return
		}
		for _, b := range resp.ToolUses() {
			if b.ID == "" || len(b.Input) == 0 || (b.InputError == "" && b.Input[0] != '{') {
				t.Fatalf("tool_use block %+v is malformed", b)
			}
		}
	})
}
