package a2a

// The JSON-RPC method names a door answers (door.md CARD-5) or refuses by name.
const (
	MethodSendMessage          = "SendMessage"
	MethodSendStreamingMessage = "SendStreamingMessage"
	MethodSubscribeToTask      = "SubscribeToTask"
	MethodStreamWatch          = "stream/watch"
	MethodGetTask              = "GetTask"
	MethodListTasks            = "ListTasks"
	MethodCancelTask           = "CancelTask"
	MethodSessionStop          = "session/stop"
	MethodGetExtendedAgentCard = "GetExtendedAgentCard"

	MethodCreateTaskPushNotificationConfig = "CreateTaskPushNotificationConfig"
	MethodGetTaskPushNotificationConfig    = "GetTaskPushNotificationConfig"
	MethodListTaskPushNotificationConfigs  = "ListTaskPushNotificationConfigs"
	MethodDeleteTaskPushNotificationConfig = "DeleteTaskPushNotificationConfig"
)

// PushNotificationMethods are the four methods answered -32003 (door.md METH-PN-1).
var PushNotificationMethods = []string{
	MethodCreateTaskPushNotificationConfig,
	MethodGetTaskPushNotificationConfig,
	MethodListTaskPushNotificationConfigs,
	MethodDeleteTaskPushNotificationConfig,
}

// ProtocolVersion is the A2A version every mur door and client speaks.
const ProtocolVersion = "1.0"

// HeaderVersion is the A2A version header (door.md RPC-3).
const HeaderVersion = "A2A-Version"

// SendMessageRequest is the params of SendMessage and SendStreamingMessage (door.md METH-SM-1).
type SendMessageRequest struct {
	Tenant        string                    `json:"tenant,omitempty"`
	Message       Message                   `json:"message"`
	Configuration *SendMessageConfiguration `json:"configuration,omitempty"`
	Metadata      map[string]any            `json:"metadata,omitempty"`
}

// SendMessageConfiguration is the part of a send's configuration the door reads.
type SendMessageConfiguration struct {
	AcceptedOutputModes []string `json:"acceptedOutputModes,omitempty"`
	HistoryLength       *int     `json:"historyLength,omitempty"`
	ReturnImmediately   bool     `json:"returnImmediately,omitempty"`
}

// SendMessageResponse is SendMessage's result: the door always answers a task.
type SendMessageResponse struct {
	Task    *Task    `json:"task,omitempty"`
	Message *Message `json:"message,omitempty"`
}

// GetTaskRequest is GetTask's params (door.md METH-GT-1).
type GetTaskRequest struct {
	Tenant        string `json:"tenant,omitempty"`
	ID            TaskID `json:"id"`
	HistoryLength *int   `json:"historyLength,omitempty"`
}

// ListTasksRequest is ListTasks' params (door.md METH-LT-1).
type ListTasksRequest struct {
	Tenant               string    `json:"tenant,omitempty"`
	ContextID            ContextID `json:"contextId,omitempty"`
	Status               TaskState `json:"status,omitempty"`
	PageSize             *int      `json:"pageSize,omitempty"`
	PageToken            string    `json:"pageToken,omitempty"`
	HistoryLength        *int      `json:"historyLength,omitempty"`
	StatusTimestampAfter string    `json:"statusTimestampAfter,omitempty"`
	IncludeArtifacts     bool      `json:"includeArtifacts,omitempty"`
}

// ListTasksResponse is ListTasks' result (door.md METH-LT-2): every key always present.
type ListTasksResponse struct {
	Tasks         []Task `json:"tasks"`
	NextPageToken string `json:"nextPageToken"`
	PageSize      int    `json:"pageSize"`
	TotalSize     int    `json:"totalSize"`
}

// CancelTaskRequest is CancelTask's params (door.md METH-CT-1).
type CancelTaskRequest struct {
	Tenant   string         `json:"tenant,omitempty"`
	ID       TaskID         `json:"id"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// SubscribeToTaskRequest is SubscribeToTask's params (door.md METH-ST-1).
type SubscribeToTaskRequest struct {
	Tenant string `json:"tenant,omitempty"`
	ID     TaskID `json:"id"`
}

// StopSessionResult is session/stop's result (door.md METH-STOP-1).
type StopSessionResult struct {
	SessionID string   `json:"session_id"`
	Canceled  []TaskID `json:"canceled"`
	Residue   []any    `json:"residue"`
}
