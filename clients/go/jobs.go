package meridian

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// JobError is returned by WaitForJob when a job ends failed or cancelled. Problem is the job's
// `error` (a problem document), also reachable with errors.As(err, &*ProblemError).
type JobError struct {
	Job     *JobView
	Problem *ProblemError
}

func (e *JobError) Error() string {
	msg := fmt.Sprintf("meridian: job %s (%s) %s", e.Job.ID, e.Job.Kind, e.Job.Status)
	if e.Problem != nil {
		msg += ": " + strings.TrimPrefix(e.Problem.Error(), "meridian: ")
	}
	return msg
}

// Unwrap returns the job's problem.
func (e *JobError) Unwrap() error {
	if e.Problem == nil {
		return nil
	}
	return e.Problem
}

// WaitOptions tune WaitForJobWith.
type WaitOptions struct {
	// Interval is the first wait between polls (default 200 ms); it grows by half each time up
	// to MaxInterval (default 2 s).
	Interval, MaxInterval time.Duration
	// OnProgress is called with the job after each poll where its status or progress changed
	// (and after the first).
	OnProgress func(JobView)
}

// WaitForJob polls a job (GET /api/v1/jobs/{id}; any area's job) until it ends, calling
// onProgress (when not nil) whenever its status or progress changes. It returns the finished
// job; a job that failed or was cancelled is returned with a *JobError. The id may also be the
// job's URL (a Location header).
func (c *Client) WaitForJob(ctx context.Context, id string, onProgress func(JobView)) (*JobView, error) {
	return c.WaitForJobWith(ctx, id, WaitOptions{OnProgress: onProgress})
}

// WaitForJobWith is WaitForJob with options.
func (c *Client) WaitForJobWith(ctx context.Context, id string, o WaitOptions) (*JobView, error) {
	id = JobIDFromLocation(id)
	if id == "" {
		return nil, fmt.Errorf("meridian: WaitForJob: no job id")
	}
	interval := o.Interval
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	maxInterval := o.MaxInterval
	if maxInterval <= 0 {
		maxInterval = 2 * time.Second
	}
	first := true
	var lastStatus string
	var lastProgress int64 = -1
	for {
		var resp *http.Response
		job := &JobView{}
		r := &apiRequest{method: http.MethodGet, path: "/api/v1/jobs/" + url.PathEscape(id)}
		if _, err := c.doJSON(ctx, r, []RequestOption{CaptureResponse(&resp)}, job); err != nil {
			return nil, err
		}
		status := fmt.Sprint(job.Status)
		progress := int64(job.Progress)
		if o.OnProgress != nil && (first || status != lastStatus || progress != lastProgress) {
			o.OnProgress(*job)
		}
		first = false
		lastStatus, lastProgress = status, progress
		switch status {
		case "succeeded":
			return job, nil
		case "failed", "cancelled":
			return job, &JobError{Job: job, Problem: problemFromValue(job.Error)}
		}
		wait := interval
		if resp != nil {
			if ra := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ra > 0 && ra < maxInterval {
				wait = ra
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return job, ctx.Err()
		case <-t.C:
		}
		interval += interval / 2
		if interval > maxInterval {
			interval = maxInterval
		}
	}
}

// JobIDFromLocation returns the job id of a job URL (`/api/v1/jobs/job_...`) or the id itself.
func JobIDFromLocation(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	s = path.Base(strings.TrimRight(s, "/"))
	if s == "." || s == "/" {
		return ""
	}
	return s
}
