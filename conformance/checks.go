package conformance

// checks is the suite, in order. Ids are stable: a new check gets a new id,
// a removed one's id is never reused. Titles say what a passing door does;
// tck names the requirement IDs of the A2A TCK (a2aproject/a2a-tck,
// tck/requirements/) a check corresponds to, where there are any.
func checks() []check {
	return []check{
		// The Agent Card (door.md §2; A2A AgentCard).
		{id: "card.fetch", tck: []string{"CARD-DISC-001"}, title: "The Agent Card is served at /.well-known/agent-card.json without a token", run: cardFetch},
		{id: "card.shape", tck: []string{"CARD-STRUCT-001"}, title: "The card parses as a strict ProtoJSON lf.a2a.v1.AgentCard", run: cardShape},
		{id: "card.cache", tck: []string{"CARD-CACHE-001", "CARD-CACHE-002"}, title: "The card is served with Cache-Control max-age and an ETag", run: cardCache},
		{id: "card.signature", tck: []string{"CARD-SIGN-003"}, title: "Each signature on the card is a JWS naming alg and kid", run: cardSignature},
		{id: "card.interface", tck: []string{"CARD-PROTO-001", "CARD-PROTO-002"}, title: "supportedInterfaces names a JSONRPC 1.0 interface", run: cardInterface},
		{id: "card.capabilities", title: "capabilities are consistent", run: cardCapabilities},
		{id: "card.skills", title: "skills is non-empty with unique ids", run: cardSkills},
		{id: "card.security", title: "Security requirements name declared schemes", run: cardSecurity},
		{id: "murmur.card", title: "The murmur extensions on the card are well formed", run: murmurCard},

		// The HTTP surface (DOOR-2..5, GO-6) and credentials (AUTH-1, AUTH-7, ORD-2).
		{id: "http.not-found", title: "Unrouted paths and methods are 404", rpc: true, run: httpNotFound},
		{id: "http.too-large", title: "A body over 8 MiB is refused 413", rpc: true, run: httpTooLarge},
		{id: "http.metrics", title: "GET /metrics serves Prometheus text without a token", run: httpMetrics},
		{id: "auth.missing", title: "No Authorization header is refused 401 unauthenticated", run: authMissing},
		{id: "auth.invalid", title: "A bad token is refused 401 invalid_token", run: authInvalid},
		{id: "auth.public", title: "A public door ignores Authorization", rpc: true, run: authPublic},
		{id: "auth.scoped", title: "A scoped credential reaches its methods and is refused the others 403 insufficient_scope", run: authScoped},

		// The JSON-RPC envelope and version (ORD-1 steps 6–10, RPC-1..3).
		{id: "rpc.version-absent", title: "No A2A-Version header is -32009", rpc: true, run: rpcVersionAbsent},
		{id: "rpc.version-wrong", title: "An unsupported A2A-Version is -32009", rpc: true, run: rpcVersionWrong},
		{id: "rpc.version-accepted", title: "A2A-Version 1.0 and its patch forms are served", rpc: true, run: rpcVersionAccepted},
		{id: "rpc.parse-error", title: "A body that is not JSON is -32700 with id null", rpc: true, run: rpcParseError},
		{id: "rpc.invalid-request", title: "A body that is not a JSON-RPC 2.0 request is -32600", rpc: true, run: rpcInvalidRequest},
		{id: "rpc.batch", title: "A batch is -32600", rpc: true, run: rpcBatch},
		{id: "rpc.notification", title: "A notification gets no answer", rpc: true, run: rpcNotification},
		{id: "rpc.method-not-found", title: "An unknown method is -32601", rpc: true, run: rpcMethodNotFound},
		{id: "rpc.a2a03-names", title: "A2A 0.3 method names are -32601", rpc: true, run: rpcA2A03Names},
		{id: "rpc.id-echo", title: "Every answer echoes the request id with its JSON type", rpc: true, run: rpcIDEcho},
		{id: "rpc.media-type", title: "application/a2a+json is read as JSON; another media type is -32005", rpc: true, run: rpcMediaType},
		{id: "rpc.params-array", title: "Array params are -32602", rpc: true, run: rpcParamsArray},

		// Methods (§7), task states (§6) and errors (RPC-4).
		{id: "send.blocking", tck: []string{"CORE-EXECUTION-MODE-001"}, title: "SendMessage holds its answer until the task is terminal or interrupted", rpc: true, run: sendBlocking},
		{id: "send.return-immediately", tck: []string{"CORE-SEND-001", "CORE-EXECUTION-MODE-002"}, title: "SendMessage with returnImmediately answers the accepted task", rpc: true, run: sendReturnImmediately},
		{id: "send.invalid-params", title: "A malformed message is -32602", rpc: true, run: sendInvalidParams},
		{id: "send.unknown-task", title: "A message naming an unknown task is -32001", rpc: true, run: sendUnknownTask},
		{id: "send.ended-task", tck: []string{"CORE-SEND-002"}, title: "A message naming an ended task is -32004", rpc: true, run: sendEndedTask},
		{id: "send.continue", title: "A message naming a task that waits for input continues it", rpc: true, run: sendContinue},
		{id: "send.content-type", tck: []string{"CORE-SEND-003"}, title: "A raw or url part is -32005", rpc: true, run: sendContentType},
		{id: "get.task", tck: []string{"CORE-GET-001"}, title: "GetTask answers the task as it stands", rpc: true, run: getTask},
		{id: "get.history", title: "GetTask honours historyLength", rpc: true, run: getHistory},
		{id: "get.unknown", tck: []string{"CORE-GET-002"}, title: "GetTask on an unknown id is -32001", rpc: true, run: getUnknown},
		{id: "get.missing-id", title: "GetTask without an id is -32602", rpc: true, run: getMissingID},
		{id: "list.shape", tck: []string{"CORE-LIST-004"}, title: "ListTasks answers tasks, nextPageToken, pageSize and totalSize", rpc: true, run: listShape},
		{id: "list.paging", tck: []string{"CORE-LIST-002"}, title: "ListTasks pages cover every task once", rpc: true, run: listPaging},
		{id: "list.filters", title: "ListTasks filters by contextId and status", rpc: true, run: listFilters},
		{id: "list.invalid", title: "Invalid ListTasks params are -32602", rpc: true, run: listInvalid},
		{id: "cancel.live", tck: []string{"CORE-CANCEL-001"}, title: "CancelTask on a live task answers it CANCELED", rpc: true, run: cancelLive},
		{id: "cancel.ended", tck: []string{"CORE-CANCEL-002"}, title: "CancelTask on an ended task is -32002 and changes nothing", rpc: true, run: cancelEnded},
		{id: "cancel.unknown", tck: []string{"CORE-CANCEL-003"}, title: "CancelTask on an unknown id is -32001", rpc: true, run: cancelUnknown},
		{id: "xcard.get", title: "GetExtendedAgentCard answers as the card declares", rpc: true, run: extendedCard},
		{id: "push.unsupported", title: "Push-notification config methods are -32003 when unsupported", rpc: true, run: pushUnsupported},

		// A2A streams (METH-SS, METH-ST, SSE-1..5).
		{id: "stream.send", tck: []string{"CORE-STREAM-001", "CORE-STREAM-003"}, title: "SendStreamingMessage streams the task from first event to its final status", rpc: true, run: streamSend},
		{id: "stream.unsupported", title: "Streaming methods are -32004 when the card says streaming false", rpc: true, run: streamUnsupported},
		{id: "subscribe.live", title: "SubscribeToTask streams a live task until its final status", rpc: true, run: subscribeLive},
		{id: "subscribe.ended", title: "SubscribeToTask on an ended task is -32004", rpc: true, run: subscribeEnded},
		{id: "subscribe.unknown", title: "SubscribeToTask on an unknown id is -32001", rpc: true, run: subscribeUnknown},

		// The HTTP+JSON binding (A2A §11), when the card lists it.
		{id: "rest.send", tck: []string{"HTTP_JSON-URL-001", "HTTP_JSON-URL-002"}, title: "The HTTP+JSON send route answers the task", rpc: true, run: restSend},
		{id: "rest.get", tck: []string{"HTTP_JSON-URL-001", "HTTP_JSON-QP-001"}, title: "GET /tasks/{id} answers the task; an unknown id is 404 TASK_NOT_FOUND", rpc: true, run: restGet},
		{id: "rest.list", tck: []string{"HTTP_JSON-QP-001"}, title: "GET /tasks answers a page of tasks from camelCase query parameters", rpc: true, run: restList},
		{id: "rest.cancel", tck: []string{"HTTP_JSON-URL-002"}, title: "The HTTP+JSON cancel route answers a live task CANCELED", rpc: true, run: restCancel},
		{id: "rest.stream", tck: []string{"HTTP_JSON-SSE-001"}, title: "The HTTP+JSON stream route streams bare StreamResponse events to the final status", rpc: true, run: restStream},
		{id: "rest.errors", tck: []string{"HTTP_JSON-ERR-001", "HTTP_JSON-ERR-002", "HTTP_JSON-STATUS-001"}, title: "HTTP+JSON errors are google.rpc.Status with A2A's HTTP status and ErrorInfo", rpc: true, run: restErrors},

		// The murmur extensions (CARD-3, CARD-5, PEER-*, SSE-6..9, METH-STOP).
		{id: "murmur.methods", title: "The door answers exactly the methods its door extension lists", rpc: true, run: murmurMethods},
		{id: "murmur.peer-consent", title: "Peer tasks are refused 403 or served as peerTasks says", rpc: true, run: murmurPeerConsent},
		{id: "murmur.forget-session", title: "x-murmur-forget-session true is -32602 and starts nothing", rpc: true, run: murmurForgetSession},
		{id: "murmur.completion", title: "Completion-origin requests are -31001, -32601 or -31002", rpc: true, run: murmurCompletion},
		{id: "murmur.watch", title: "stream/watch opens with connection-ack and well-formed frames", rpc: true, run: murmurWatch},

		// Formation member tokens (AUTH-6, GO-5), given with --token member=.
		{id: "formation.scope", title: "A member token reaches exactly its five methods", run: formationScope},
		{id: "formation.forged", title: "A member token altered, unsigned or signed HS256 is refused 401 invalid_token", run: formationForged},
		{id: "formation.own-tasks", title: "A member token sees only the tasks its member started", run: formationOwnTasks},

		// Last: it cancels every live task of the door's session.
		{id: "murmur.session-stop", title: "session/stop cancels every live task once", rpc: true, run: murmurSessionStop},
	}
}
