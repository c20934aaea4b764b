package door

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzScanObject checks the scanner against encoding/json: on valid JSON it
// finds exactly the members json.Unmarshal finds (last key wins), and on
// anything it never panics. Its input, like the door's, is valid UTF-8.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1}`, `{"a":"x\"}","b":[1,{"c":"]"}],"a":null}`, ` { "k" : { } , "l" : [ ] } `,
		`{"\u0069d":7}`, `[1,2]`, `"s"`, `{"a":}`, `{"a":1,}`, `{"a" 1}`, `{"a":1}x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		members, ok := scanObject(b)
		scanArray(b)                          // must not panic either
		if !json.Valid(b) || !utf8.Valid(b) { // the door checks both first
			return
		}
		var want map[string]json.RawMessage
		if json.Unmarshal(b, &want) != nil || want == nil {
			if ok {
				t.Fatalf("scanObject(%q) ok, json finds no object", b)
			}
			return
		}
		if !ok {
			t.Fatalf("scanObject(%q) failed on an object", b)
		}
		o := object(members)
		for k, v := range want {
			got, found := o.get(k)
			if !found || !bytes.Equal(got, v) {
				t.Fatalf("scanObject(%q)[%q] = %q, want %q", b, k, got, v)
			}
		}
		for _, m := range members {
			if _, found := want[string(m.key)]; !found {
				t.Fatalf("scanObject(%q) found key %q json does not", b, m.key)
			}
		}
	})
}

func TestScanArray(t *testing.T) {
	elems, ok := scanArray([]byte(` [ "a" , {"b":[1]} ,null ] `))
	if !ok || len(elems) != 3 || string(elems[1]) != `{"b":[1]}` || string(elems[2]) != "null" {
		t.Errorf("scanArray = %q, %v", elems, ok)
	}
	for _, bad := range []string{`[1,]`, `[1 2]`, `{}`, `[`, `[1]]`} {
		if _, ok := scanArray([]byte(bad)); ok {
			t.Errorf("scanArray(%q) ok", bad)
		}
	}
}
