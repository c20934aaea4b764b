package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
)

// Line is one line of a trace.jsonl: its number, its decoded header and its
// bytes without the newline. Record decodes the rest.
type Line struct {
	Num int // 1-based
	Header
	Raw []byte
}

// MalformedError is a line that is not a record (capsule.md CLI-9): not
// JSON, not an object, without a string event_type, or holding a field of
// the wrong JSON type. Err's text is what E-TRC-001 shows after
// "malformed JSON: ".
type MalformedError struct {
	Line int
	Err  error
}

func (e *MalformedError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *MalformedError) Unwrap() error { return e.Err }

// Lines reads a trace line by line, each with its header decoded. A line
// that is not a record yields a *MalformedError; a read error yields that
// error; either ends the sequence. A last line without its newline counts.
func Lines(r io.Reader) iter.Seq2[Line, error] {
	return func(yield func(Line, error) bool) {
		br := bufio.NewReader(r)
		for n := 1; ; n++ {
			b, err := br.ReadBytes('\n')
			if len(b) == 0 && errors.Is(err, io.EOF) {
				return
			}
			if err != nil && !errors.Is(err, io.EOF) {
				yield(Line{Num: n}, err)
				return
			}
			l, perr := ParseLine(bytes.TrimSuffix(b, []byte("\n")))
			l.Num = n
			if perr != nil {
				yield(l, &MalformedError{Line: n, Err: perr})
				return
			}
			if !yield(l, nil) || errors.Is(err, io.EOF) {
				return
			}
		}
	}
}

// ParseLine decodes one line's header. The error says why the line is not
// a record: the JSON syntax error, "not a JSON object", "no event_type", or
// a header field of the wrong type. Line.Num is left 0.
func ParseLine(b []byte) (Line, error) {
	l := Line{Raw: b}
	if !json.Valid(b) {
		var v any
		return l, json.Unmarshal(b, &v)
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return l, errors.New("not a JSON object")
	}
	var h struct {
		Header
		EventType *string `json:"event_type"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return l, typeError("record", err)
	}
	if h.EventType == nil {
		return l, errors.New("no event_type")
	}
	l.Header = h.Header
	l.EventType = *h.EventType
	return l, nil
}

// Record decodes the line's payload into its record type. known is false,
// with a nil error, for a type this build does not write: readers skip those
// (capsule.md §6). A field of the wrong JSON type is an error worded
// "<event_type>.<field> holds a JSON <kind>".
func (l Line) Record() (r Record, known bool, err error) {
	k, ok := byType[l.EventType]
	if !ok {
		return nil, false, nil
	}
	p := reflect.New(reflect.TypeOf(k.Zero))
	if err := json.Unmarshal(l.Raw, p.Interface()); err != nil {
		return nil, true, typeError(l.EventType, err)
	}
	return p.Elem().Interface().(Record), true, nil
}

// As decodes l as a T; an error when l is another type's line or holds a
// field of the wrong JSON type.
func As[T Record](l Line) (T, error) {
	var r T
	if l.EventType != r.EventType() {
		return r, fmt.Errorf("line %d is %s, not %s", l.Num, l.EventType, r.EventType())
	}
	if err := json.Unmarshal(l.Raw, &r); err != nil {
		return r, typeError(l.EventType, err)
	}
	return r, nil
}

// Check reports whether l is byte for byte what a Writer writes for its
// record: a type of this package, every field known, in declaration order,
// null and absent as the type has them. Tests run it on every line they
// read, so a record the runtime writes cannot drift from its type.
func (l Line) Check() error {
	r, known, err := l.Record()
	if err != nil {
		return err
	}
	if !known {
		return fmt.Errorf("line %d: event_type %q has no record type", l.Num, l.EventType)
	}
	again, err := MarshalLine(l.Header, r)
	if err != nil {
		return err
	}
	if !bytes.Equal(again, l.Raw) {
		return fmt.Errorf("line %d: %s does not match its record type:\n got %s\nwant %s", l.Num, l.EventType, l.Raw, again)
	}
	return nil
}

// typeError words a field of the wrong JSON type without Go type names.
func typeError(typ string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s.%s holds a JSON %s", typ, te.Field, te.Value)
	}
	return fmt.Errorf("%s: %w", typ, err)
}
