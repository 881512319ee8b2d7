package meridian

import (
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says how a request answered 429 (rate limited) or 503 (busy, unavailable) is
// sent again. The wait is the answer's Retry-After when it has one (seconds or an HTTP date),
// otherwise an exponential back-off with jitter. Requests whose body cannot be read twice (a
// plain io.Reader that is not an io.Seeker) are not retried.
type RetryPolicy struct {
	// MaxAttempts counts every attempt, the first included; 1 or less turns retries off.
	MaxAttempts int
	// BaseDelay is the first back-off without Retry-After; it doubles on every attempt.
	BaseDelay time.Duration
	// MaxDelay caps the back-off without Retry-After.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After waited for; an answer asking for longer is
	// returned as it is (a *ProblemError with RetryAfter set). Zero means no limit.
	MaxRetryAfter time.Duration
	// OnRetry, when set, is called before each wait.
	OnRetry func(RetryEvent)
}

// RetryEvent describes a retry about to happen.
type RetryEvent struct {
	Method     string
	URL        string
	Attempt    int // the attempt that was answered 429 or 503 (1 for the first)
	StatusCode int
	Wait       time.Duration
	RetryAfter string // the header as sent, "" when absent
}

// DefaultRetryPolicy retries up to 3 times (4 attempts), honouring Retry-After up to two
// minutes, with a back-off from 500 ms to 30 s otherwise.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second, MaxRetryAfter: 2 * time.Minute}
}

// NoRetries is the policy without retries.
var NoRetries = RetryPolicy{MaxAttempts: 1}

// wait returns how long to wait before the attempt after `attempt`, and whether to retry.
func (p RetryPolicy) wait(attempt int, retryAfter string) (time.Duration, bool) {
	if attempt >= p.MaxAttempts {
		return 0, false
	}
	if strings.TrimSpace(retryAfter) != "" {
		d := parseRetryAfter(retryAfter, time.Now())
		if d < 0 {
			d = 0
		}
		if p.MaxRetryAfter > 0 && d > p.MaxRetryAfter {
			return 0, false
		}
		return d, true
	}
	base := p.BaseDelay
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	d := base << uint(attempt-1)
	if p.MaxDelay > 0 && (d > p.MaxDelay || d <= 0) {
		d = p.MaxDelay
	}
	// Full jitter on the upper half, so that many clients do not come back at once.
	half := d / 2
	d = half + time.Duration(rand.Int63n(int64(half)+1))
	return d, true
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
