package a2a

import "testing"

// TestErrorInfoKeyOrder_RPC4 pins the bytes of every ErrorInfo the door
// writes: metadata keys in door.md's order (RPC-4's example writes taskId
// before state), not encoding/json's sorted one; values unescaped.
func TestErrorInfoKeyOrder_RPC4(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"not cancelable", TaskNotCancelable("tsk_1", TaskStateCompleted),
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org","metadata":{"taskId":"tsk_1","state":"TASK_STATE_COMPLETED"}}]`},
		{"content type", ContentTypeNotSupported(1, "image/png"),
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"CONTENT_TYPE_NOT_SUPPORTED","domain":"a2a-protocol.org","metadata":{"partIndex":"1","mediaType":"image/png"}}]`},
		{"version", VersionNotSupported("0.3"),
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org","metadata":{"requestedVersion":"0.3","supportedVersions":"1.0"}}]`},
		{"no metadata", PushNotificationNotSupported(),
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"PUSH_NOTIFICATION_NOT_SUPPORTED","domain":"a2a-protocol.org","metadata":{}}]`},
		{"unlisted keys sorted after, unescaped", NewError(ErrUnsupportedOperation, "m", map[string]string{"z": "<&>", "a": "\"", "taskId": "t"}),
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org","metadata":{"taskId":"t","a":"\"","z":"<&>"}}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Marshal(tc.err.Data()) // as the door encodes: no HTML escaping
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("data = %s\nwant   %s", b, tc.want)
			}
			back := ErrorFromWire(tc.err.Code, tc.err.Message, b)
			if len(back.Metadata) != len(tc.err.Metadata) || back.Reason != tc.err.Reason {
				t.Errorf("round trip = %+v, want %+v", back, tc.err)
			}
			for k, v := range tc.err.Metadata {
				if back.Metadata[k] != v {
					t.Errorf("round trip metadata %s = %q, want %q", k, back.Metadata[k], v)
				}
			}
		})
	}
}
