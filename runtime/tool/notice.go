package tool

import (
	"fmt"
	"time"
)

// DeadlineNotice is NOTICE-1's line: the session's end at `at` (RFC 3339 UTC
// to the second) and the whole seconds left from now, rounded down.
func DeadlineNotice(at, now time.Time) string {
	return fmt.Sprintf("Session deadline: the runtime ends this session at %s, in %d seconds.",
		FormatDeadline(at), LeftSecs(at, now))
}

// FormatDeadline renders a deadline as RFC 3339 UTC to the second.
func FormatDeadline(at time.Time) string { return at.UTC().Format("2006-01-02T15:04:05Z") }

// LeftSecs is the whole seconds from now to at, rounded down; 0 once passed.
func LeftSecs(at, now time.Time) int64 {
	d := at.Sub(now)
	if d <= 0 {
		return 0
	}
	return int64(d / time.Second)
}

// NoticeMargin is NOTICE-2's margin: configured (lifecycle.deadline_notice_secs)
// when set, else 300 s or a tenth of the time from session start to the
// deadline if shorter, at least 1 s. ok is false when no notice is sent
// (configured 0).
func NoticeMargin(configured *int64, start, deadline time.Time) (margin time.Duration, ok bool) {
	if configured != nil {
		if *configured == 0 {
			return 0, false
		}
		return time.Duration(*configured) * time.Second, true
	}
	margin = 300 * time.Second
	if tenth := deadline.Sub(start) / 10; tenth < margin {
		margin = tenth
	}
	if margin < time.Second {
		margin = time.Second
	}
	return margin, true
}
