package manifest

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/diag"
)

func (l *loader) inference(d string, v *yaml.Node) {
	in := &Inference{Compaction: Compaction{Threshold: DefaultCompactionThreshold}}
	l.m.Inference = in
	removed := func(key string) field {
		return field{key: key, fn: func(d string, _ *yaml.Node) { l.fault(diag.ManRemovedKey(l.at(d), key)) }}
	}
	pos := func(dst func(int64)) func(string, *yaml.Node) {
		return func(d string, v *yaml.Node) {
			if n, ok := l.atLeast(d, v, 1); ok {
				dst(n)
			}
		}
	}
	// Under process the harness reaches its own model (PROC-2): the keys
	// that configure mur's own model calls are refused, not decoded.
	notRead := func(fault string, fn func(string, *yaml.Node)) func(string, *yaml.Node) {
		return func(d string, v *yaml.Node) {
			if l.process {
				l.invalid(d, "%s", fault)
				return
			}
			fn(d, v)
		}
	}
	// The keys only a harness reads (PROC-1, PROC-2).
	processOnly := func(fn func(string, *yaml.Node)) func(string, *yaml.Node) {
		return func(d string, v *yaml.Node) {
			if !l.process {
				l.invalid(d, "is read only under inference.transport: process")
				return
			}
			fn(d, v)
		}
	}
	ok := l.mapping(d, v, []field{
		{key: "transport", fn: func(d string, v *yaml.Node) {
			in.Transport, _ = l.enum(d, v, TransportHTTP, TransportProcess)
		}},
		{key: "driver", fn: notRead(faultOwnModel, func(d string, v *yaml.Node) { in.Driver = l.driverBlock(d, v, false) })},
		{key: "alternates", fn: notRead(faultOwnModel, func(d string, v *yaml.Node) {
			v = resolve(v)
			if v.Kind != yaml.SequenceNode {
				l.invalid(d, "must be a list, not %s", kindName(v))
				return
			}
			for i, e := range v.Content {
				in.Alternates = append(in.Alternates, l.driverBlock(fmt.Sprintf("%s[%d]", d, i), e, true))
			}
		})},
		{key: "harness", fn: processOnly(func(d string, v *yaml.Node) { in.Harness, _ = l.enum(d, v, HarnessClaude, HarnessCodex) })},
		{key: "command", fn: processOnly(func(d string, v *yaml.Node) {
			s, ok := l.str(d, v)
			if ok && s == "" {
				l.invalid(d, "must not be empty")
				return
			}
			in.Command = s
		})},
		{key: "max_turns", fn: pos(func(n int64) { in.MaxTurns = int(n) })},
		{key: "max_tokens", fn: notRead(faultOwnModel, pos(func(n int64) { in.MaxTokens = int(n) }))},
		{key: "max_session_tokens", fn: notRead(faultSessionTokens, pos(func(n int64) { in.MaxSessionTokens = n }))},
		{key: "system_prompt", fn: func(d string, v *yaml.Node) {
			if s, ok := l.str(d, v); ok {
				in.SystemPrompt = strings.TrimSpace(s)
			}
		}},
		{key: "system_prompt_file", fn: func(d string, v *yaml.Node) {
			s, ok := l.str(d, v)
			if ok && s == "" {
				l.invalid(d, "must not be empty")
				return
			}
			in.SystemPromptFile = s
		}},
		{key: "tool_refresh", fn: func(d string, v *yaml.Node) { in.ToolRefresh, _ = l.enum(d, v, "task", "turn") }},
		{key: "compaction", fn: l.compaction},
		{key: "model", fn: func(d string, v *yaml.Node) {
			if !l.process { // under http the model belongs to a driver block
				l.fault(diag.ManRemovedKey(l.at(d), "model"))
				return
			}
			in.Model, _ = l.str(d, v)
		}},
		removed("endpoint"),
		removed("api_key"),
	})
	if !ok {
		return
	}
	if !l.process && !l.present(d+".driver") { // PROC-2: no driver under process
		l.miss = append(l.miss, diag.RunNoDriver(l.file))
	}
	if l.present(d+".system_prompt") && l.present(d+".system_prompt_file") {
		l.invalid(d+".system_prompt_file", "declare system_prompt or system_prompt_file, not both")
	}
	seen := map[string]bool{}
	for i, a := range in.Alternates {
		if a.Name == "" {
			continue
		}
		if seen[a.Name] {
			l.invalid(fmt.Sprintf("%s.alternates[%d].name", d, i), "'%s' names another choice too", a.Name)
		}
		seen[a.Name] = true
	}
}

// compaction reads inference.compaction (its threshold a fraction of the
// input budget); under process it warns that it does nothing.
func (l *loader) compaction(d string, v *yaml.Node) {
	c := &l.m.Inference.Compaction
	ok := l.mapping(d, v, []field{
		{key: "threshold", fn: func(d string, v *yaml.Node) {
			n := resolve(v)
			t, err := strconv.ParseFloat(n.Value, 64)
			if n.Kind != yaml.ScalarNode || (n.Tag != "!!float" && n.Tag != "!!int") || err != nil || !(t > 0 && t <= 1) {
				l.invalid(d, "must be a number greater than 0 and at most 1, not '%s'", n.Value)
				return
			}
			c.Threshold = t
		}},
		{key: "model", fn: func(d string, v *yaml.Node) { c.Model, _ = l.str(d, v) }},
		{key: "system_prompt", fn: func(d string, v *yaml.Node) { c.SystemPrompt, _ = l.str(d, v) }},
		{key: "system_prompt_file", fn: func(d string, v *yaml.Node) {
			s, ok := l.str(d, v)
			if ok && s == "" {
				l.invalid(d, "must not be empty")
				return
			}
			c.SystemPromptFile = s
		}},
		{key: "dump_summaries", fn: func(d string, v *yaml.Node) { c.DumpSummaries, _ = l.boolean(d, v) }},
	})
	if !ok {
		return
	}
	if l.present(d+".system_prompt") && l.present(d+".system_prompt_file") {
		l.invalid(d+".system_prompt_file", "declare system_prompt or system_prompt_file, not both")
	}
	if l.process && l.probe == nil {
		l.warns = append(l.warns, diag.SecCompactionProcess(d))
	}
}

// PROC-2's faults for the keys of mur's own model calls under process.
const (
	faultOwnModel      = "is not read under inference.transport: process: the harness reaches its own model"
	faultSessionTokens = "is not enforced under inference.transport: process: the harness reaches its provider with its own credentials, so mur measures no request"
	faultNoDriver      = "is not read under inference.transport: process: there is no driver choice to switch"
	faultNoInstall     = "is refused under inference.transport: process: the harness owns its tool list, so nothing can be pulled into it"
)

// peekTransport reads inference.transport before the walk, so blocks
// decoded before inference (lifecycle, capabilities) know it (PROC-1,
// PROC-2). A malformed value reads as http; the walk reports it.
func peekTransport(root *yaml.Node) string {
	for _, kv := range pairs(resolve(root)) {
		if kv[0].Value != "inference" {
			continue
		}
		in := resolve(kv[1])
		if in.Kind != yaml.MappingNode {
			return TransportHTTP
		}
		for _, ikv := range pairs(in) {
			if t := resolve(ikv[1]); ikv[0].Value == "transport" && t.Kind == yaml.ScalarNode && t.Value == TransportProcess {
				return TransportProcess
			}
		}
	}
	return TransportHTTP
}

var envRef = regexp.MustCompile(`^\$\{([A-Z][A-Z0-9_]*)\}$`)

// driverBlock decodes inference.driver (alternate false) or an alternates[] entry.
func (l *loader) driverBlock(d string, v *yaml.Node, alternate bool) DriverBlock {
	b := DriverBlock{Where: d, Name: PrimaryChoice, Available: true}
	if alternate {
		b.Name = ""
	}
	fields := []field{
		{key: "kind", fn: func(d string, v *yaml.Node) { b.Kind, _ = l.enum(d, v, KindScripted, KindOpenAI, KindAnthropic) }},
		{key: "model", fn: func(d string, v *yaml.Node) { b.Model, _ = l.str(d, v) }},
		{key: "endpoint", fn: func(d string, v *yaml.Node) {
			s, ok := l.str(d, v)
			if !ok {
				return
			}
			if p := EndpointProblem(s); p != "" {
				l.invalid(d, "'%s' %s", s, p)
				return
			}
			if p := EndpointProblemFor(b.Kind, s); p != "" {
				l.invalid(d, "%s", p)
				return
			}
			b.Endpoint = s
		}},
		{key: "api_key", fn: func(d string, v *yaml.Node) {
			s, ok := l.str(d, v)
			if !ok {
				return
			}
			m := envRef.FindStringSubmatch(s)
			if m == nil {
				l.invalid(d, "must be ${NAME}, an environment variable in UPPER_SNAKE case; a literal key is refused")
				return
			}
			b.APIKeyEnv = m[1]
		}},
		{key: "keyless", fn: func(d string, v *yaml.Node) { b.Keyless, _ = l.boolean(d, v) }},
		{key: "script", fn: func(d string, v *yaml.Node) {
			s, ok := l.str(d, v)
			if ok && s == "" {
				l.invalid(d, "must not be empty")
				return
			}
			b.Script = s
		}},
		{key: "config", fn: func(d string, v *yaml.Node) { b.Config = l.driverConfig(d, v) }},
	}
	if alternate {
		fields = append(fields, field{key: "name", fn: func(d string, v *yaml.Node) {
			s, ok := l.str(d, v)
			switch {
			case !ok:
			case s == PrimaryChoice:
				l.invalid(d, "'primary' names the inference.driver choice; choose another name")
			case NameProblem(s) != "":
				l.invalid(d, "'%s' is not a choice name: %s", s, NameProblem(s))
			default:
				b.Name = s
			}
		}})
	}
	var required []string
	if alternate {
		required = []string{"name", "kind"}
	}
	if !l.mapping(d, v, fields, required...) {
		return b
	}
	if !alternate && !l.present(d+".kind") {
		l.miss = append(l.miss, diag.RunNoDriverKind(l.file))
	}
	switch b.Kind {
	case KindOpenAI, KindAnthropic:
		if !l.present(d + ".model") {
			l.miss = append(l.miss, l.missing(d, "model"))
		}
		if l.present(d + ".script") {
			l.invalid(d+".script", "only the scripted driver takes a script")
		}
	case KindScripted:
		if !l.present(d + ".script") {
			l.miss = append(l.miss, l.missing(d, "script"))
		}
		if l.present(d + ".endpoint") {
			l.invalid(d+".endpoint", "the scripted driver takes no endpoint")
		}
		if l.present(d + ".api_key") {
			l.invalid(d+".api_key", "the scripted driver takes no credential")
		}
	}
	if b.Keyless && l.present(d+".api_key") {
		l.invalid(d+".api_key", "declare api_key or keyless: true, not both")
	}
	return b
}

// driverConfigKeys are the keys of a driver block's config that DRV-4,
// DRV-5 and DRV-10 give a meaning, each with its check; any other key is
// passed to the driver as it is.
var driverConfigKeys = map[string]func(l *loader, d string, v *yaml.Node){
	"context_window_tokens": func(l *loader, d string, v *yaml.Node) { l.atLeast(d, v, 1) },
	"max_input_tokens":      func(l *loader, d string, v *yaml.Node) { l.atLeast(d, v, 1) },
	"request_timeout_secs":  func(l *loader, d string, v *yaml.Node) { l.atLeast(d, v, 1) },
	"max_tokens_field": func(l *loader, d string, v *yaml.Node) {
		l.enum(d, v, "max_tokens", "max_completion_tokens")
	},
}

// driverConfig reads a driver block's config mapping, checking the keys
// DRV-4, DRV-5 and DRV-10 give a meaning.
func (l *loader) driverConfig(d string, v *yaml.Node) map[string]any {
	v = resolve(v)
	if v.Kind != yaml.MappingNode {
		l.invalid(d, "must be a mapping, not %s", kindName(v))
		return nil
	}
	if l.probe != nil {
		l.probeOpen(d, driverConfigKeys)
	}
	for _, kv := range pairs(v) {
		if check := driverConfigKeys[kv[0].Value]; check != nil {
			check(l, d+"."+kv[0].Value, kv[1])
		}
	}
	m, ok := l.jsonValue(v)
	if !ok {
		l.invalid(d, "must be a mapping of keys to JSON values")
		return nil
	}
	return m
}

// EndpointProblem returns why s is not a driver endpoint (capsule.md §1.6),
// or "": https:// reaches any host; http:// only localhost, 127.0.0.0/8 and
// [::1]; no user information, ${, query or fragment.
func EndpointProblem(s string) string {
	if strings.Contains(s, "${") {
		return "holds ${: an endpoint is written out, never read from the environment"
	}
	u, err := url.Parse(s)
	if err != nil {
		return "is not a URL"
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "must start with https:// (or http:// for a local server)"
	case u.User != nil:
		return "must not hold user information"
	case u.RawQuery != "" || u.ForceQuery:
		return "must not hold a query"
	case u.Fragment != "" || strings.Contains(s, "#"):
		return "must not hold a fragment"
	case u.Hostname() == "":
		return "has no host"
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return "uses http:// off this machine; only localhost, 127.0.0.0/8 and [::1] may use http://"
	}
	return ""
}

// The paths the HTTP drivers add to their endpoint (DRV-5, DRV-6).
const (
	openAIPath    = "/chat/completions"
	anthropicPath = "/v1/messages"
)

// EndpointProblemFor returns why s, well formed, is not an endpoint of
// kind, or "": an endpoint is the base URL the provider's own SDK takes, so
// one ending in a path the driver adds itself (/chat/completions for
// openai; /v1 or /v1/messages for anthropic, whose SDK base URL has no /v1)
// is refused with the URL to write instead, before a request would post to
// /v1/v1/messages and get a bare 404.
func EndpointProblemFor(kind, s string) string {
	base := strings.TrimRight(s, "/")
	var cut, adds string
	switch kind {
	case KindOpenAI:
		if strings.HasSuffix(base, openAIPath) {
			cut, adds = openAIPath, openAIPath
		}
	case KindAnthropic:
		switch {
		case strings.HasSuffix(base, anthropicPath):
			cut, adds = anthropicPath, anthropicPath
		case strings.HasSuffix(base, "/v1"):
			cut, adds = "/v1", anthropicPath
		}
	}
	if cut == "" {
		return ""
	}
	return fmt.Sprintf("'%s' ends in %s, but the %s driver posts to <endpoint>%s itself; write '%s', the base URL its SDK takes", s, cut, kind, adds, strings.TrimSuffix(base, cut))
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	if ip == nil {
		return false
	}
	if ip4 := ip.To4(); ip4 != nil {
		return ip4[0] == 127
	}
	return ip.Equal(net.IPv6loopback)
}
