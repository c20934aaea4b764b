package openai

import (
	"testing"

	"github.com/murmur-go/mur/runtime/driver"
)

// FuzzDecodeReply: any body gives a response or an error, never a panic, and
// every tool_use block has an id and a JSON input.
func FuzzDecodeReply(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"message":{"content":"hi","tool_calls":[{"id":"c","type":"function","function":{"name":"x","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":0}}}`,
		`{"choices":[{"message":{"content":[{"type":"text","text":"a"}],"tool_calls":[{"function":{"name":"x","arguments":{"a":1}}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":"[1"}}]}}]}`,
		`{"choices":[]}`, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := decodeReply(body)
		if err != nil {
			return
		}
		for _, b := range resp.ToolUses() {
			if b.ID == "" || len(b.Input) == 0 {
				t.Fatalf("tool_use block %+v lacks an id or input", b)
			}
			if b.InputError == "" && b.Input[0] != '{' {
				t.Fatalf("tool_use input %s is not an object", b.Input)
			}
		}
		_ = driver.Reason(&driver.ResponseError{Kind: Kind, Err: err})
	})
}
