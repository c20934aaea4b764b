package a2a

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestMarshal pins the one encoder every wire writer uses: compact, fields
// in declaration order, '<', '>' and '&' as themselves, no trailing newline.
func TestMarshal(t *testing.T) {
	b, err := Marshal(struct {
		Z string            `json:"z"`
		A map[string]string `json:"a"`
	}{`<untrusted-content source="x">a & b</untrusted-content>`, map[string]string{"y": "1", "b": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"z":"<untrusted-content source=\"x\">a & b</untrusted-content>","a":{"b":"2","y":"1"}}`
	if string(b) != want {
		t.Errorf("Marshal = %s\nwant      %s", b, want)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("Marshal(func) = nil error, want an unsupported type error")
	}
}

// TestObject checks an Object keeps its member order both ways, unescaped,
// and names the member that is not a string.
func TestObject(t *testing.T) {
	o := Object{{"zed", "<&>"}, {"alpha", "\"q\""}, {"mid", ""}}
	b, err := json.Marshal(struct {
		O Object `json:"o"`
	}{o})
	if err != nil {
		t.Fatal(err)
	}
	// json.Marshal re-escapes HTML in a marshaler's output; Marshal does not.
	if want := `{"o":{"zed":"\u003c\u0026\u003e","alpha":"\"q\"","mid":""}}`; string(b) != want {
		t.Errorf("json.Marshal = %s, want %s", b, want)
	}
	b, err = Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"zed":"<&>","alpha":"\"q\"","mid":""}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var back Object
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != len(o) {
		t.Fatalf("round trip = %v, want %v", back, o)
	}
	for i := range o {
		if back[i] != o[i] {
			t.Errorf("member %d = %v, want %v", i, back[i], o[i])
		}
	}
	if b, _ := Marshal(Object{}); string(b) != "{}" {
		t.Errorf("empty Object = %s, want {}", b)
	}

	err = json.Unmarshal([]byte(`{"a":"1","b":2}`), &back)
	me, ok := errors.AsType[*MemberError](err)
	if !ok || me.Key != "b" {
		t.Errorf("non-string member: err = %v, want a *MemberError for b", err)
	}
	if err := json.Unmarshal([]byte(`["a"]`), &back); err == nil || err.Error() != "not an object" {
		t.Errorf("array: err = %v, want not an object", err)
	}
}
