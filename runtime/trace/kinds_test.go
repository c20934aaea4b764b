package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEveryRecordTypeIsAKind walks this package's source: every type with
// an EventType method (a Record) is in Kinds exactly once, under its own
// event_type, and nothing else is. Together with the sealed Record
// interface — Writer.Write takes nothing else — this is what makes every
// record the runtime writes a type of this package.
func TestEveryRecordTypeIsAKind(t *testing.T) {
	t.Parallel()
	declared := map[string]bool{}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "EventType" {
				continue
			}
			typ := fd.Recv.List[0].Type
			if st, ok := typ.(*ast.StarExpr); ok {
				typ = st.X
			}
			declared[typ.(*ast.Ident).Name] = true
		}
	}
	if len(declared) < 30 {
		t.Fatalf("found %d record types in the source, want the whole set (the walk is broken)", len(declared))
	}
	listed := map[string]bool{}
	seen := map[string]bool{}
	for _, k := range Kinds() {
		name := reflect.TypeOf(k.Zero).Name()
		if listed[name] {
			t.Errorf("%s is listed twice in kinds", name)
		}
		listed[name] = true
		if seen[k.EventType] {
			t.Errorf("event_type %s is listed twice in kinds", k.EventType)
		}
		seen[k.EventType] = true
		if got := k.Zero.EventType(); got != k.EventType {
			t.Errorf("kinds lists %s as %q, its EventType is %q", name, k.EventType, got)
		}
		if !declared[name] {
			t.Errorf("kinds lists %s, which declares no EventType in this package", name)
		}
	}
	for name := range declared {
		if !listed[name] {
			t.Errorf("record type %s is not in kinds: the Writer would refuse it", name)
		}
	}
}

// TestFieldsAreSnakeCaseAndUnique checks every record type's JSON keys:
// lower snake case, none twice, none a header key (TRACE-1).
func TestFieldsAreSnakeCaseAndUnique(t *testing.T) {
	t.Parallel()
	header := []string{"event_type", "event_id", "parent_id", "session_id", "timestamp"}
	for _, k := range Kinds() {
		var keys []string
		var walk func(reflect.Type)
		walk = func(rt reflect.Type) {
			for f := range rt.Fields() {
				if f.Anonymous {
					walk(f.Type.Elem())
					continue
				}
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				keys = append(keys, name)
			}
		}
		walk(reflect.TypeOf(k.Zero))
		for i, key := range keys {
			if key == "" || strings.Trim(key, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
				t.Errorf("%s: field key %q is not snake case", k.EventType, key)
			}
			if slices.Contains(keys[:i], key) || slices.Contains(header, key) {
				t.Errorf("%s: key %q repeats a key of the line", k.EventType, key)
			}
		}
	}
}

// TestZeroValuesRoundTrip writes each type's zero value and reads it back
// byte for byte (Line.Check), through Lines, Record and As.
func TestZeroValuesRoundTrip(t *testing.T) {
	t.Parallel()
	ff := &fakeFile{}
	w := New(ff, "t", "ses_x", fixedNow)
	for _, k := range Kinds() {
		if _, err := w.Write(k.Zero); err != nil {
			t.Fatalf("Write(%s) error = %v", k.EventType, err)
		}
	}
	n := 0
	for l, err := range Lines(bytes.NewReader(ff.buf.Bytes())) {
		if err != nil {
			t.Fatal(err)
		}
		k := kinds[n]
		if err := l.Check(); err != nil {
			t.Errorf("Check(%s) = %v", k.EventType, err)
		}
		r, known, err := l.Record()
		if err != nil || !known || !reflect.DeepEqual(reflect.TypeOf(r), reflect.TypeOf(k.Zero)) {
			t.Errorf("Record(%s) = %T, %v, %v", k.EventType, r, known, err)
		}
		n++
	}
	if n != len(kinds) {
		t.Errorf("read %d lines, wrote %d", n, len(kinds))
	}
}

// stray is a Record the package does not list: the Writer refuses it.
type stray struct{}

func (stray) EventType() string { return "stray" }
func (stray) task() string      { return "" }

// impostor claims a listed event_type with another Go type.
type impostor struct{}

func (impostor) EventType() string { return "tool_call" }
func (impostor) task() string      { return "" }

func TestWriterRefusesUnlistedTypes(t *testing.T) {
	t.Parallel()
	ff := &fakeFile{}
	w := New(ff, "t", "ses_x", fixedNow)
	for _, r := range []Record{stray{}, impostor{}, nil, (*Shell)(nil)} {
		if _, err := w.Write(r); !errors.Is(err, errUnregistered) {
			t.Errorf("Write(%#v) error = %v, want %v", r, err, errUnregistered)
		}
	}
	if ff.writes != 0 || w.Err() != nil {
		t.Errorf("writes = %d, Err = %v after refused records, want none", ff.writes, w.Err())
	}
}

// TestGoldenRecordsRoundTrip reads every record line kept in a golden file
// of the module (tools' record goldens: plan_records, bg_*, switch-driver
// refusals …), decodes it into its type and encodes it again: the bytes
// must come back unchanged, so a golden record whose type lacks a field,
// orders it differently or writes null for absent fails here.
func TestGoldenRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	checked := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".golden") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<22)
		for n := 1; sc.Scan(); n++ {
			line := sc.Bytes()
			if !bytes.HasPrefix(line, []byte(`{"event_type":"`)) {
				continue
			}
			// Goldens write a number that varies as N (bg_*: elapsed_secs).
			line = placeholder.ReplaceAll(line, []byte(`":0$1`))
			rel, _ := filepath.Rel(root, path)
			if err := roundTrip(line); err != nil {
				t.Errorf("%s:%d: %v", rel, n, err)
			}
			l, _ := ParseLine(line)
			checked[l.EventType]++
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(checked) < 5 {
		t.Fatalf("golden record types checked = %v, want the tools' record goldens", checked)
	}
}

var placeholder = regexp.MustCompile(`":N([,}])`)

// roundTrip re-encodes a line: with its envelope through Check, without
// it through Marshal.
func roundTrip(line []byte) error {
	l, err := ParseLine(line)
	if err != nil {
		return err
	}
	if l.EventID != "" {
		return l.Check()
	}
	r, known, err := l.Record()
	if err != nil {
		return err
	}
	if !known {
		return errors.New("event_type " + l.EventType + " has no record type")
	}
	again, err := Marshal(r)
	if err != nil {
		return err
	}
	if !bytes.Equal(again, line) {
		return errors.New("does not match its record type:\n got " + string(line) + "\nwant " + string(again))
	}
	return nil
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/murmur-go/mur\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}

// TestParseLineErrors keeps the wording E-TRC-001 shows.
func TestParseLineErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ line, want string }{
		{`{"event_type":`, "unexpected end of JSON input"},
		{`[1]`, "not a JSON object"},
		{`{"x":1}`, "no event_type"},
		{`{"event_type":3}`, "record.event_type holds a JSON number"},
	}
	for _, c := range cases {
		if _, err := ParseLine([]byte(c.line)); err == nil || err.Error() != c.want {
			t.Errorf("ParseLine(%s) error = %v, want %q", c.line, err, c.want)
		}
	}
	l, err := ParseLine([]byte(`{"event_type":"tool_call","duration_ms":"12"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Record(); err == nil || err.Error() != "tool_call.duration_ms holds a JSON string" {
		t.Errorf("Record() error = %v", err)
	}
	if _, err := As[Shell](l); err == nil {
		t.Error("As[Shell] of a tool_call line: no error")
	}
	if r, known, err := (Line{Header: Header{EventType: "resource_read"}, Raw: []byte(`{}`)}).Record(); r != nil || known || err != nil {
		t.Errorf("Record(unknown type) = %v, %v, %v; want skipped", r, known, err)
	}
	var js json.RawMessage = []byte(`{"event_type":"shell","event_id":"evt_1","parent_id":null,"session_id":"s","timestamp":1,"turn":0,"extra":1}`)
	if l, _ := ParseLine(js); l.Check() == nil {
		t.Error("Check accepted a field its type does not have")
	}
}
