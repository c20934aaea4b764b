package a2a

// AgentCard is an A2A v1.0 AgentCard in ProtoJSON form (door.md §2). Field
// order is the order the door writes keys in.
type AgentCard struct {
	Name                 string                    `json:"name"`
	Description          string                    `json:"description"`
	Version              string                    `json:"version"`
	SupportedInterfaces  []AgentInterface          `json:"supportedInterfaces"`
	Capabilities         AgentCapabilities         `json:"capabilities"`
	SecuritySchemes      map[string]SecurityScheme `json:"securitySchemes"`
	SecurityRequirements []SecurityRequirement     `json:"securityRequirements"`
	DefaultInputModes    []string                  `json:"defaultInputModes"`
	DefaultOutputModes   []string                  `json:"defaultOutputModes"`
	Skills               []AgentSkill              `json:"skills"`
	// Provider, DocumentationURL, IconURL and Signatures are never written by
	// a mur door (CARD-1) but are kept when a client reads another vendor's card.
	Provider         map[string]any `json:"provider,omitempty"`
	DocumentationURL string         `json:"documentationUrl,omitempty"`
	IconURL          string         `json:"iconUrl,omitempty"`
	Signatures       []any          `json:"signatures,omitempty"`
}

// Extension returns the card's extension with the given URI, or nil.
func (c *AgentCard) Extension(uri string) *AgentExtension {
	for i := range c.Capabilities.Extensions {
		if c.Capabilities.Extensions[i].URI == uri {
			return &c.Capabilities.Extensions[i]
		}
	}
	return nil
}

// AgentInterface.ProtocolBinding of a door's two bindings (A2A §8.3.1).
const (
	BindingJSONRPC  = "JSONRPC"
	BindingHTTPJSON = "HTTP+JSON"
)

// AgentInterface is one URL and binding the agent answers at.
type AgentInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	Tenant          string `json:"tenant,omitempty"`
	ProtocolVersion string `json:"protocolVersion"`
}

// AgentCapabilities is the card's capability block (door.md CARD-2).
type AgentCapabilities struct {
	Streaming         bool             `json:"streaming"`
	PushNotifications bool             `json:"pushNotifications"`
	ExtendedAgentCard bool             `json:"extendedAgentCard"`
	Extensions        []AgentExtension `json:"extensions"`
}

// AgentExtension is one extension a card declares (door.md CARD-3).
type AgentExtension struct {
	URI         string         `json:"uri"`
	Description string         `json:"description"`
	Required    bool           `json:"required"`
	Params      map[string]any `json:"params"`
}

// SecurityScheme is one named scheme; mur writes only HTTP bearer (door.md CARD-6).
type SecurityScheme struct {
	HTTPAuthSecurityScheme *HTTPAuthSecurityScheme `json:"httpAuthSecurityScheme,omitempty"`
}

// HTTPAuthSecurityScheme is an HTTP authentication scheme such as Bearer.
type HTTPAuthSecurityScheme struct {
	Scheme       string `json:"scheme"`
	Description  string `json:"description,omitempty"`
	BearerFormat string `json:"bearerFormat,omitempty"`
}

// SecurityRequirement maps scheme names to the scopes they need.
type SecurityRequirement struct {
	Schemes map[string]StringList `json:"schemes"`
}

// StringList is ProtoJSON's wrapper of a repeated string in a map value.
type StringList struct {
	List []string `json:"list"`
}

// AgentSkill is one skill on the card (door.md CARD-4).
type AgentSkill struct {
	ID                   string                `json:"id"`
	Name                 string                `json:"name"`
	Description          string                `json:"description"`
	Tags                 []string              `json:"tags"`
	Examples             []string              `json:"examples,omitempty"`
	InputModes           []string              `json:"inputModes,omitempty"`
	OutputModes          []string              `json:"outputModes,omitempty"`
	SecurityRequirements []SecurityRequirement `json:"securityRequirements,omitempty"`
}

// The murmur extension URIs (door.md CARD-3).
const (
	ExtensionDoor    = "https://docs.murmur.nexus/reference/agent-card/#murmur-door-v1"
	ExtensionCapsule = "https://docs.murmur.nexus/reference/agent-card/#murmur-capsule-v1"
	ExtensionStream  = "https://docs.murmur.nexus/reference/streaming-protocol/#murmur-stream-v1"
)

// WellKnownCardPath is where every door serves its public card.
const WellKnownCardPath = "/.well-known/agent-card.json"
