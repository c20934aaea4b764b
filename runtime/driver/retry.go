package driver

import "time"

// The causes of a retried attempt (Retry.Cause).
const (
	RetryRateLimited = "rate_limited" // HTTP 429
	RetryServerError = "server_error" // HTTP 5xx
	RetryConnection  = "connection"   // no answer: refused, reset, closed early
)

// Retry is one inference attempt that failed and is tried again (DRV-4):
// the loop writes it as a driver_retry record, prints it under -v and counts
// it in mur_inference_retries_total.
type Retry struct {
	Kind    string        // the driver kind: "openai", "anthropic"
	Attempt int           // the attempt that failed, from 1
	Cause   string        // RetryRateLimited, RetryServerError or RetryConnection
	Status  int           // the HTTP status, 0 when none arrived
	Wait    time.Duration // the wait before the next attempt (Retry-After honoured)
	Err     error         // what failed
}
