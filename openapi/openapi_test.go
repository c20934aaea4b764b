package openapi_test

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/openapi"
)

// docURL is where the document is registered with the schema compiler.
const docURL = "mem://mur/openapi.json"

// document is openapi.yaml, decoded, with a schema compiler over it.
type document struct {
	tree map[string]any
	mu   sync.Mutex
	c    *jsonschema.Compiler
	sch  map[string]*jsonschema.Schema // compiled, by "#/…" ref
}

func loadDocument(t *testing.T) *document {
	t.Helper()
	var tree map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(openapi.YAML()))
	if err := dec.Decode(&tree); err != nil {
		t.Fatalf("decode openapi.yaml: %v", err)
	}
	b, err := json.Marshal(tree)
	if err != nil {
		t.Fatalf("openapi.yaml as JSON: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(docURL, inst); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(b, &tree) // plain JSON types from here on
	return &document{tree: tree, c: c, sch: map[string]*jsonschema.Schema{}}
}

// at walks the tree along keys.
func (d *document) at(keys ...string) any {
	var v any = d.tree
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// refOf returns a {"$ref": …} node's target.
func refOf(node any) string {
	m, _ := node.(map[string]any)
	s, _ := m["$ref"].(string)
	return s
}

// schema compiles the schema at ref ("#/components/schemas/Task").
func (d *document) schema(t *testing.T, ref string) *jsonschema.Schema {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.sch[ref]; ok {
		return s
	}
	s, err := d.c.Compile(docURL + ref)
	if err != nil {
		t.Fatalf("compile %s: %v", ref, err)
	}
	d.sch[ref] = s
	return s
}

// validate checks body against the schema at ref.
func (d *document) validate(t *testing.T, what, ref string, body []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Errorf("%s: body %q is not JSON: %v", what, body, err)
		return
	}
	if err := d.schema(t, ref).Validate(inst); err != nil {
		t.Errorf("%s: body %s does not validate against %s: %v", what, body, ref, err)
	}
}

// exchange checks a real answer against the document: the operation
// declares its status; an empty body has no content; otherwise its media
// type is declared and a JSON body validates against that content's schema.
func (d *document) exchange(t *testing.T, what, method, path string, status int, header http.Header, body []byte) {
	t.Helper()
	resp := d.at("paths", path, strings.ToLower(method), "responses", strconv.Itoa(status))
	if resp == nil {
		t.Errorf("%s: %s %s answered %d, which the document does not declare", what, method, path, status)
		return
	}
	content, _ := resp.(map[string]any)["content"].(map[string]any)
	if len(body) == 0 {
		if len(content) > 0 && status != http.StatusOK {
			t.Errorf("%s: %s %s %d has an empty body, the document declares content", what, method, path, status)
		}
		return
	}
	mt, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	media, ok := content[mt]
	if !ok {
		t.Errorf("%s: %s %s %d answered %s, which the document does not declare", what, method, path, status, mt)
		return
	}
	if ref := refOf(media.(map[string]any)["schema"]); ref != "" && (mt == a2a.MediaTypeJSON || mt == a2a.MediaTypeA2AJSON) {
		d.validate(t, what, ref, body)
	}
}

// method is x-jsonrpc-methods[name]: its params and result refs.
func (d *document) method(name string) map[string]any {
	m, _ := d.at("paths", "/", "post", "x-jsonrpc-methods", name).(map[string]any)
	return m
}

// Every $ref in the document compiles (the document is self-contained).
func TestDocumentCompiles(t *testing.T) {
	t.Parallel()
	d := loadDocument(t)
	if v := d.at("openapi"); v != "3.1.0" {
		t.Errorf("openapi = %v, want 3.1.0", v)
	}
	var refs []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if r := refOf(x); r != "" {
				refs = append(refs, r)
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(d.tree)
	if len(refs) < 40 {
		t.Fatalf("found %d $refs, want the document's many", len(refs))
	}
	for _, r := range refs {
		if strings.HasPrefix(r, "#/components/schemas/") {
			d.schema(t, r)
		}
	}
}

// x-jsonrpc-methods names every method a door answers or refuses by name
// (door.md CARD-5, METH-PN-1), each with params and what it answers.
func TestMethodsListed_CARD5(t *testing.T) {
	t.Parallel()
	d := loadDocument(t)
	want := []string{a2a.MethodSendMessage, a2a.MethodSendStreamingMessage, a2a.MethodSubscribeToTask,
		a2a.MethodStreamWatch, a2a.MethodGetTask, a2a.MethodListTasks, a2a.MethodCancelTask,
		a2a.MethodSessionStop, a2a.MethodGetExtendedAgentCard}
	want = append(want, a2a.PushNotificationMethods...)
	got := d.at("paths", "/", "post", "x-jsonrpc-methods").(map[string]any)
	var names []string
	for k := range got {
		names = append(names, k)
	}
	sort.Strings(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("x-jsonrpc-methods = %v, want %v", names, want)
	}
	for _, n := range names {
		m := d.method(n)
		if refOf(m["params"]) == "" {
			t.Errorf("%s has no params schema", n)
		}
		if refOf(m["result"]) == "" && refOf(m["stream"]) == "" && m["watch"] != true && m["errorOnly"] == nil {
			t.Errorf("%s says nothing of what it answers", n)
		}
	}
}

// The document describes exactly the routes the door's chi router serves
// (door.md DOOR-2, GO-2): every route is in it and nothing else.
func TestRoutesMatchRouter_DOOR2(t *testing.T) {
	t.Parallel()
	d := loadDocument(t)
	var documented []string
	for path, ops := range d.at("paths").(map[string]any) {
		for method := range ops.(map[string]any) {
			if slices.Contains([]string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}, method) {
				// OpenAPI's path template is chi's catch-all here.
				route := strings.ReplaceAll(path, "{handle}", "*")
				documented = append(documented, strings.ToUpper(method)+" "+route)
			}
		}
	}
	sort.Strings(documented)
	for _, auth := range []bool{false, true} {
		srv := newDoor(t, doorOpts{auth: auth})
		var routed []string
		err := chi.Walk(srv.door.Routes(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
			routed = append(routed, method+" "+route)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(routed)
		if !slices.Equal(routed, documented) {
			t.Errorf("authenticated %v: the router serves %v, the document describes %v", auth, routed, documented)
		}
	}
}
