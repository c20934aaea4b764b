package main

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/capsule"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/traceview"
)

// jsonOutputs are the --json documents docs/json.md describes, each under
// its heading.
var jsonOutputs = []struct {
	heading string
	doc     any
}{
	{"`mur ps --json`", psJSON{}},
	{"`mur list --json`", listJSON{}},
	{"`mur install --json`", installJSON{}},
	{"`mur doctor --json`", doctorJSON{}},
	{"`mur stop <session> --json`", capsule.Stopped{}},
	{"`mur stop <frm_id> --json`", capsule.StoppedFormation{}},
	{"`mur conformance --json`", conformanceJSON{}},
	{"`mur card verify --json`", cardJSON{}},
	{"`mur trace show --json`", traceview.Summary{}},
	{"`mur trace show <frm_id> --json`", formationTraceJSON{}},
	{"`mur conversation ls --json`", conversationLsJSON{}},
	{"`mur conversation show <store>/<context> --json`", conversationShowJSON{}},
	{"`mur version --json`", versionJSON{}},
}

// jsonLeaf reports whether a field of type t is documented as a whole: a
// diagnostic, a nested mur stop document, a trace record (capsule.md §6),
// a time.
func jsonLeaf(t reflect.Type) bool {
	return t == reflect.TypeFor[diagJSON]() || t == reflect.TypeFor[driver.Block]() || t == reflect.TypeFor[capsule.Stopped]() || t == reflect.TypeFor[time.Time]() || t == reflect.TypeFor[traceview.Summary]() ||
		strings.HasSuffix(t.PkgPath(), "/runtime/trace")
}

// jsonFields lists the field paths of a document type: "sessions",
// "sessions[].session_id", … in declaration order.
func jsonFields(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" { // an embedded struct's fields are the document's own
			out = append(out, jsonFields(f.Type, prefix)...)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		path := prefix + name
		out = append(out, path)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		suffix := "."
		if ft.Kind() == reflect.Slice {
			ft, suffix = ft.Elem(), "[]."
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
		}
		if ft.Kind() == reflect.Struct && !jsonLeaf(ft) {
			out = append(out, jsonFields(ft, path+suffix)...)
		}
	}
	return out
}

var jsonFieldRow = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|")

// TestJSONReference: docs/json.md has a section per --json document, and
// its table lists exactly the document's fields, in their order.
func TestJSONReference(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string][]string{}
	var cur string
	for _, line := range strings.Split(string(data), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			cur = h
			continue
		}
		if m := jsonFieldRow.FindStringSubmatch(line); m != nil && cur != "" && m[1] != "field" {
			sections[cur] = append(sections[cur], m[1])
		}
	}
	for _, o := range jsonOutputs {
		want := jsonFields(reflect.TypeOf(o.doc), "")
		got, ok := sections[o.heading]
		if !ok {
			t.Errorf("docs/json.md has no section \"## %s\"", o.heading)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("docs/json.md, %s: the table lists\n  %s\nwant, in this order,\n  %s", o.heading, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}
