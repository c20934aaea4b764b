package agentcard

import "github.com/murmur-go/mur/a2a"

// The extension descriptions, verbatim (door.md CARD-3).
const (
	doorDescription = "Every JSON-RPC method this door answers, including the murmur methods stream/watch " +
		"and session/stop, which are not A2A methods, and whether it accepts tasks from peer capsules."
	capsuleDescription = "The session answering this address and what the capsule may do. " +
		"Served only to authenticated callers once the door authenticates."
	streamDescription = "Every server-sent event type this capsule's stream/watch connections can write. " +
		"SendStreamingMessage and SubscribeToTask write A2A StreamResponse events only."
	bearerDescription = "A token this capsule's runtime mints at launch and accepts until the session ends."
)

// The task skill (door.md CARD-4).
const (
	skillID          = "task"
	skillName        = "Run a task"
	skillDescription = "Runs one task given as a text message and reports its outcome."
)

// bearerScheme is the one security scheme's name (door.md CARD-6).
const bearerScheme = "bearer"

// card mirrors a2a.AgentCard field for field, but types each extension's
// params so that their keys keep door.md's order (a map would sort them).
type card struct {
	Name                 string                        `json:"name"`
	Description          string                        `json:"description"`
	Version              string                        `json:"version"`
	SupportedInterfaces  []a2a.AgentInterface          `json:"supportedInterfaces"`
	Capabilities         capabilities                  `json:"capabilities"`
	SecuritySchemes      map[string]a2a.SecurityScheme `json:"securitySchemes"`
	SecurityRequirements []a2a.SecurityRequirement     `json:"securityRequirements"`
	DefaultInputModes    []string                      `json:"defaultInputModes"`
	DefaultOutputModes   []string                      `json:"defaultOutputModes"`
	Skills               []a2a.AgentSkill              `json:"skills"`
}

type capabilities struct {
	Streaming         bool        `json:"streaming"`
	PushNotifications bool        `json:"pushNotifications"`
	ExtendedAgentCard bool        `json:"extendedAgentCard"`
	Extensions        []extension `json:"extensions"`
}

type extension struct {
	URI         string `json:"uri"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Params      any    `json:"params"`
}

type doorParams struct {
	Methods   []string `json:"methods"`
	PeerTasks bool     `json:"peerTasks"`
}

// PlanePeerFiles is the capsule extension's plane name for exports.peer_files.
const PlanePeerFiles = "peer_files"

type capsuleParams struct {
	SessionID string   `json:"sessionId"`
	Tools     []string `json:"tools"`
	Shell     bool     `json:"shell"`
	Network   bool     `json:"network"`
	Planes    []string `json:"planes"`
}

type streamParams struct {
	Frames []string `json:"frames"`
}

var modes = []string{a2a.MediaTypeText, a2a.MediaTypeJSON}

// card builds one card; withCapsule says whether the capsule extension is on
// it: the public card of a public door and the extended card (CARD-3, CARD-7).
func (c *Config) card(withCapsule bool) card {
	tools := append([]string{}, c.Tools...)
	planes := []string{}
	if c.PeerFiles {
		planes = append(planes, PlanePeerFiles)
	}
	exts := []extension{{
		URI: a2a.ExtensionDoor, Description: doorDescription,
		Params: doorParams{Methods: Methods(c.Acceptance, c.Authenticated), PeerTasks: c.PeerTasks},
	}}
	if withCapsule {
		exts = append(exts, extension{
			URI: a2a.ExtensionCapsule, Description: capsuleDescription,
			Params: capsuleParams{SessionID: c.SessionID, Tools: tools, Shell: c.Shell, Network: c.Network, Planes: planes},
		})
	}
	exts = append(exts, extension{
		URI: a2a.ExtensionStream, Description: streamDescription,
		Params: streamParams{Frames: append([]string{}, a2a.WatchFrames...)},
	})
	skill := a2a.AgentSkill{ID: skillID, Name: skillName, Description: skillDescription, Tags: []string{skillID}}
	schemes := map[string]a2a.SecurityScheme{}
	reqs := []a2a.SecurityRequirement{}
	if c.Authenticated {
		schemes[bearerScheme] = a2a.SecurityScheme{HTTPAuthSecurityScheme: &a2a.HTTPAuthSecurityScheme{
			Scheme: "Bearer", Description: bearerDescription,
		}}
		reqs = append(reqs, a2a.SecurityRequirement{Schemes: map[string]a2a.StringList{bearerScheme: {List: []string{}}}})
		if c.Acceptance.Streaming() { // CARD-6: one requirement per served task-starting method
			for _, m := range []string{a2a.MethodSendMessage, a2a.MethodSendStreamingMessage} {
				skill.SecurityRequirements = append(skill.SecurityRequirements,
					a2a.SecurityRequirement{Schemes: map[string]a2a.StringList{bearerScheme: {List: []string{m}}}})
			}
		}
	}
	return card{
		Name:        c.Name,
		Description: "Murmur capsule " + c.Name + " " + c.Version,
		Version:     c.Version,
		SupportedInterfaces: []a2a.AgentInterface{
			{URL: c.URL, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.ProtocolVersion},
			{URL: c.URL, ProtocolBinding: a2a.BindingHTTPJSON, ProtocolVersion: a2a.ProtocolVersion},
		},
		Capabilities: capabilities{
			Streaming:         c.Acceptance.Streaming(),
			PushNotifications: false,
			ExtendedAgentCard: c.Authenticated,
			Extensions:        exts,
		},
		SecuritySchemes:      schemes,
		SecurityRequirements: reqs,
		DefaultInputModes:    modes,
		DefaultOutputModes:   modes,
		Skills:               []a2a.AgentSkill{skill},
	}
}
