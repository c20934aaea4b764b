package manifest

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/diag"
)

// CredentialScopes are the scope names a network.authentication credential
// may list (door.md AUTH-3); resources/files is LATER.
var CredentialScopes = []string{
	"SendMessage", "SendStreamingMessage", "SubscribeToTask", "stream/watch",
	"GetTask", "ListTasks", "CancelTask", "session/stop", "resources/files",
}

func (l *loader) network(d string, v *yaml.Node) {
	n := &l.m.Network
	l.mapping(d, v, []field{
		{key: "internal_port", fn: func(d string, v *yaml.Node) {
			p, ok := l.atLeast(d, v, 1)
			if ok && p > 65535 {
				l.invalid(d, "must be at most 65535")
				return
			}
			n.InternalPort = int(p)
		}},
		{key: "authentication", empty: true, fn: l.authentication},
	})
}

func (l *loader) authentication(d string, v *yaml.Node) {
	if isNull(v) {
		l.invalid(d, "must declare scheme: bearer")
		return
	}
	a := &Authentication{}
	l.mapping(d, v, []field{
		{key: "scheme", fn: func(d string, v *yaml.Node) { a.Scheme, _ = l.enum(d, v, "bearer") }},
		{key: "credentials", fn: func(d string, v *yaml.Node) {
			v = resolve(v)
			if v.Kind != yaml.SequenceNode {
				l.invalid(d, "must be a list, not %s", kindName(v))
				return
			}
			seen := map[string]bool{}
			for i, e := range v.Content {
				path := fmt.Sprintf("%s[%d]", d, i)
				var c Credential
				l.mapping(path, e, []field{
					{key: "name", fn: func(d string, v *yaml.Node) {
						s, ok := l.str(d, v)
						switch {
						case !ok:
						case s == "" || strings.Contains(s, ":"):
							l.invalid(d, "'%s' is not a credential name: names are non-empty and hold no ':'", s)
						case s == "operator":
							l.invalid(d, "'operator' is the session's own token; choose another name")
						case seen[s]:
							l.invalid(d, "'%s' is declared twice", s)
						default:
							seen[s] = true
							c.Name = s
						}
					}},
					{key: "scopes", fn: func(d string, v *yaml.Node) {
						list, ok := l.strList(d, v)
						if !ok {
							return
						}
						for j, s := range list {
							if !contains(CredentialScopes, s) {
								l.fault(diag.ManNotOneOf(l.at(fmt.Sprintf("%s[%d]", d, j)), fmt.Sprintf("%s[%d]", d, j), s, CredentialScopes...))
								return
							}
							if s == "resources/files" {
								l.warns = append(l.warns, diag.SecNotSupported(fmt.Sprintf("%s[%d]", d, j)))
							}
						}
						c.Scopes = list
					}},
				}, "name", "scopes")
				a.Credentials = append(a.Credentials, c)
			}
		}},
	}, "scheme")
	l.m.Network.Authentication = a
}
