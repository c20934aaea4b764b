// Package a2a holds the A2A v1.0 wire types in ProtoJSON form (camelCase keys,
// TASK_STATE_* and ROLE_* enum names), the JSON-RPC method names, the protocol
// errors with their codes and google.rpc.ErrorInfo details, the id formats,
// and the murmur extensions' wire names (headers, metadata.murmur, stream/watch
// frames, formation token scopes). It does no I/O; the client is in a2a/client.
//
// # Example
//
//	t := a2a.Task{ID: a2a.TaskID(a2a.NewID(a2a.PrefixTask)), ContextID: "ctx_…",
//		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(time.Now())}}
//	err := a2a.TaskNotFound(t.ID) // errors.Is(err, a2a.ErrTaskNotFound)
package a2a
