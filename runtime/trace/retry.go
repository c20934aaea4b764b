package trace

// DriverRetry is driver_retry (DRV-4): one inference
// attempt that failed and is tried again, written before the wait, under
// the task (the turn's inference record comes after the call). cause is
// rate_limited (429), server_error (5xx) or connection; status is null when
// no HTTP answer arrived; error is one line.
type DriverRetry struct {
	Turn    int    `json:"turn"`
	TaskID  string `json:"task_id"`
	Driver  string `json:"driver"` // the driver kind
	Attempt int    `json:"attempt"`
	Cause   string `json:"cause"`
	Status  *int   `json:"status"`
	WaitMS  int64  `json:"wait_ms"`
	Error   string `json:"error"`
}

func (DriverRetry) EventType() string { return "driver_retry" }
func (r DriverRetry) task() string    { return r.TaskID }
