package conformance

// The lf.a2a.v1.AgentCard message and its parts (a2a.proto, A2A v1.0), for
// card.shape: a strict ProtoJSON parser accepts nothing else (door.md §2).
var (
	scopesList              = &objSpec{name: "StringList", fields: map[string]spec{"list": strList}}
	securityRequirementSpec = &objSpec{name: "SecurityRequirement", fields: map[string]spec{
		"schemes": mapSpec{of: scopesList},
	}}
	oauthFlowSpec      = mapSpec{of: anySpec{}} // flows are checked for being objects only
	securitySchemeSpec = &objSpec{name: "SecurityScheme", fields: map[string]spec{
		"apiKeySecurityScheme": &objSpec{name: "APIKeySecurityScheme", fields: map[string]spec{
			"description": strSpec{}, "location": strSpec{}, "name": strSpec{},
		}, required: []string{"location", "name"}},
		"httpAuthSecurityScheme": &objSpec{name: "HTTPAuthSecurityScheme", fields: map[string]spec{
			"description": strSpec{}, "scheme": strSpec{}, "bearerFormat": strSpec{},
		}, required: []string{"scheme"}},
		"oauth2SecurityScheme": &objSpec{name: "OAuth2SecurityScheme", fields: map[string]spec{
			"description": strSpec{}, "flows": oauthFlowSpec, "oauth2MetadataUrl": strSpec{},
		}, required: []string{"flows"}},
		"openIdConnectSecurityScheme": &objSpec{name: "OpenIdConnectSecurityScheme", fields: map[string]spec{
			"description": strSpec{}, "openIdConnectUrl": strSpec{},
		}, required: []string{"openIdConnectUrl"}},
		"mtlsSecurityScheme": &objSpec{name: "MutualTlsSecurityScheme", fields: map[string]spec{
			"description": strSpec{},
		}},
	}, oneOf: []string{"apiKeySecurityScheme", "httpAuthSecurityScheme", "oauth2SecurityScheme",
		"openIdConnectSecurityScheme", "mtlsSecurityScheme"}, oneOfRequired: true}
	interfaceSpec = &objSpec{name: "AgentInterface", fields: map[string]spec{
		"url": strSpec{}, "protocolBinding": strSpec{}, "tenant": strSpec{}, "protocolVersion": strSpec{},
	}, required: []string{"url", "protocolBinding", "protocolVersion"}}
	extensionSpec = &objSpec{name: "AgentExtension", fields: map[string]spec{
		"uri": strSpec{}, "description": strSpec{}, "required": boolSpec{}, "params": structV,
	}}
	capabilitiesSpec = &objSpec{name: "AgentCapabilities", fields: map[string]spec{
		"streaming": boolSpec{}, "pushNotifications": boolSpec{}, "extensions": listSpec{of: extensionSpec},
		"extendedAgentCard": boolSpec{},
	}}
	skillSpec = &objSpec{name: "AgentSkill", fields: map[string]spec{
		"id": strSpec{}, "name": strSpec{}, "description": strSpec{}, "tags": strList,
		"examples": strList, "inputModes": strList, "outputModes": strList,
		"securityRequirements": listSpec{of: securityRequirementSpec},
	}, required: []string{"id", "name", "description", "tags"}}
	cardSpec = &objSpec{name: "AgentCard", fields: map[string]spec{
		"name": strSpec{}, "description": strSpec{},
		"supportedInterfaces": listSpec{of: interfaceSpec, nonEmpty: true},
		"provider": &objSpec{name: "AgentProvider", fields: map[string]spec{
			"url": strSpec{}, "organization": strSpec{},
		}, required: []string{"url", "organization"}},
		"version": strSpec{}, "documentationUrl": strSpec{}, "capabilities": capabilitiesSpec,
		"securitySchemes":      mapSpec{of: securitySchemeSpec},
		"securityRequirements": listSpec{of: securityRequirementSpec},
		"defaultInputModes":    strList, "defaultOutputModes": strList,
		"skills": listSpec{of: skillSpec},
		"signatures": listSpec{of: &objSpec{name: "AgentCardSignature", fields: map[string]spec{
			"protected": strSpec{}, "signature": strSpec{}, "header": structV,
		}, required: []string{"protected", "signature"}}},
		"iconUrl": strSpec{},
	}, required: []string{"name", "description", "supportedInterfaces", "version", "capabilities",
		"defaultInputModes", "defaultOutputModes", "skills"}}
)
