package trace

// PeerHandleMint is peer_handle_mint (tools.md PFILE-6; fields from the
// murmur reference): one share-file call that ran, minted or refused,
// after its tool_call. handle_id and expires_at_ms are null unless
// outcome is "ok"; path is relative to exports.peer_files.root, never a
// host path; audience is empty when the peer's card could not be read.
type PeerHandleMint struct {
	Turn        int     `json:"turn"`
	TaskID      string  `json:"task_id"`
	HandleID    *string `json:"handle_id"`
	Path        string  `json:"path"`
	Audience    string  `json:"audience"`
	ExpiresAtMS *int64  `json:"expires_at_ms"`
	Outcome     string  `json:"outcome"` // ok | peer_unreachable | a PFILE-5 code
	Reason      *string `json:"reason"`  // null on ok; one sentence otherwise
}

// PeerHandleRedeem is peer_handle_redeem (PFILE-6): one answer of
// GET /resources/peer/<handle>, served or refused, written by the listener
// under the session node, concurrently with any task. path is null until
// the MAC verified; audience_asserted is the header as sent (null when
// absent); bytes and sha256 are null unless outcome is "ok".
type PeerHandleRedeem struct {
	HandleID         string  `json:"handle_id"`
	Path             *string `json:"path"`
	Generation       uint64  `json:"generation"`
	AudienceAsserted *string `json:"audience_asserted"`
	Bytes            *int64  `json:"bytes"`
	SHA256           *string `json:"sha256"`
	Outcome          string  `json:"outcome"` // ok | a PFILE-5 code
	Reason           *string `json:"reason"`
}

// PeerFileFetch is peer_file_fetch (PFILE-6): one fetch-peer-file call
// that ran, after its tool_call. stored_path (relative to the accessible
// workdir), bytes and sha256 are null unless outcome is "ok".
type PeerFileFetch struct {
	Turn       int     `json:"turn"`
	TaskID     string  `json:"task_id"`
	Peer       string  `json:"peer"`
	HandleID   string  `json:"handle_id"`
	StoredPath *string `json:"stored_path"`
	Bytes      *int64  `json:"bytes"`
	SHA256     *string `json:"sha256"`
	// Outcome: ok, peer_not_allowed, peer_unreachable, etag_mismatch,
	// io_error, or the peer's own code.
	Outcome string  `json:"outcome"`
	Reason  *string `json:"reason"`
}

func (PeerHandleMint) EventType() string   { return "peer_handle_mint" }
func (PeerHandleRedeem) EventType() string { return "peer_handle_redeem" }
func (PeerFileFetch) EventType() string    { return "peer_file_fetch" }

func (r PeerHandleMint) task() string { return r.TaskID }
func (PeerHandleRedeem) task() string { return "" }
func (r PeerFileFetch) task() string  { return r.TaskID }
