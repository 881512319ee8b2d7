package meridian

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ProblemError is an error answer of the server: an RFC 7807 problem document
// (application/problem+json) with Meridian's `code`, `errors` and `request_id`. Answers that
// are not problem documents (an OGC exception report, a proxy's page) are ProblemErrors too,
// with the HTTP status and the text of the body as Detail.
//
//	var pe *meridian.ProblemError
//	if errors.As(err, &pe) && pe.Status == 422 {
//		for _, f := range pe.Errors {
//			fmt.Println(f.Pointer, f.Code, f.Detail)
//		}
//	}
type ProblemError struct {
	// Status is the HTTP status (the document's `status`, which is the same).
	Status int
	// Code is the stable machine-readable code, e.g. "validation_failed", "rate_limited".
	Code string
	// Type is a URI reference naming the kind of problem ("/docs/problems#<code>").
	Type string
	// Title is a short summary of the kind of problem.
	Title string
	// Detail says what happened on this occasion.
	Detail string
	// Instance, when the server gave one.
	Instance string
	// Errors has one entry per invalid field, located by a JSON pointer.
	Errors []FieldProblem
	// RequestID identifies the request in the server's logs (also X-Request-Id).
	RequestID string
	// RetryAfter is the answer's Retry-After (429, 503), zero when absent.
	RetryAfter time.Duration
	// Method and URL of the request.
	Method, URL string
	// Header of the answer.
	Header http.Header
	// Body is the raw answer (at most 64 KiB).
	Body []byte
	// Extensions holds the document's other members.
	Extensions map[string]json.RawMessage
}

// FieldProblem is one invalid field of a request.
type FieldProblem struct {
	// Pointer locates the field (RFC 6901), e.g. "/records/0/ttl"; "" is the whole document.
	Pointer string `json:"pointer"`
	// Code is the stable reason, e.g. "required", "out_of_range".
	Code string `json:"code"`
	// Detail says what is wrong, for a person.
	Detail string `json:"detail"`
}

// Error gives the status, code, detail, the field pointers and the request id.
func (e *ProblemError) Error() string {
	var b strings.Builder
	b.WriteString("meridian: ")
	if e.Method != "" {
		fmt.Fprintf(&b, "%s %s: ", e.Method, e.URL)
	}
	b.WriteString(strconv.Itoa(e.Status))
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	} else if t := http.StatusText(e.Status); t != "" {
		b.WriteString(" " + t)
	}
	switch {
	case e.Detail != "":
		b.WriteString(": " + e.Detail)
	case e.Title != "":
		b.WriteString(": " + e.Title)
	}
	for i, f := range e.Errors {
		if i == 0 {
			b.WriteString(" [")
		} else {
			b.WriteString("; ")
		}
		p := f.Pointer
		if p == "" {
			p = "(document)"
		}
		b.WriteString(p + " " + f.Code)
		if i == len(e.Errors)-1 {
			b.WriteString("]")
		}
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// Pointers lists the JSON pointers of the invalid fields.
func (e *ProblemError) Pointers() []string {
	out := make([]string, 0, len(e.Errors))
	for _, f := range e.Errors {
		out = append(out, f.Pointer)
	}
	return out
}

// Field returns the problem with the field at pointer.
func (e *ProblemError) Field(pointer string) (FieldProblem, bool) {
	for _, f := range e.Errors {
		if f.Pointer == pointer {
			return f, true
		}
	}
	return FieldProblem{}, false
}

// Errors that a *ProblemError matches with errors.Is, by HTTP status.
var (
	ErrBadRequest         = errors.New("meridian: bad request")         // 400
	ErrUnauthenticated    = errors.New("meridian: unauthenticated")     // 401
	ErrForbidden          = errors.New("meridian: forbidden")           // 403
	ErrNotFound           = errors.New("meridian: not found")           // 404
	ErrConflict           = errors.New("meridian: conflict")            // 409
	ErrPreconditionFailed = errors.New("meridian: precondition failed") // 412
	ErrValidation         = errors.New("meridian: validation failed")   // 422
	ErrRateLimited        = errors.New("meridian: rate limited")        // 429
	ErrUnavailable        = errors.New("meridian: unavailable")         // 503
)

var statusErrors = map[int]error{
	400: ErrBadRequest, 401: ErrUnauthenticated, 403: ErrForbidden, 404: ErrNotFound,
	409: ErrConflict, 412: ErrPreconditionFailed, 422: ErrValidation, 429: ErrRateLimited,
	503: ErrUnavailable,
}

// Is lets errors.Is(err, meridian.ErrNotFound) and the like test the status.
func (e *ProblemError) Is(target error) bool {
	return statusErrors[e.Status] == target && target != nil
}

// problemFromResponse reads an error answer (and closes nothing: the caller does).
func problemFromResponse(method string, resp *http.Response) *ProblemError {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	pe := &ProblemError{Status: resp.StatusCode, Method: method, Header: resp.Header, Body: data}
	if resp.Request != nil && resp.Request.URL != nil {
		u := *resp.Request.URL
		q := u.Query()
		if q.Has("access_token") {
			q.Set("access_token", "REDACTED")
			u.RawQuery = q.Encode()
		}
		pe.URL = u.String()
	}
	pe.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	pe.RequestID = resp.Header.Get("X-Request-Id")
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "application/problem+json" || mt == "application/json" {
		if decodeProblem(data, pe) == nil {
			if pe.Status == 0 {
				pe.Status = resp.StatusCode
			}
			return pe
		}
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		text = http.StatusText(resp.StatusCode)
	}
	pe.Detail = truncate(text, 500)
	return pe
}

// decodeProblem fills pe from a problem document.
func decodeProblem(data []byte, pe *ProblemError) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	str := func(k string) string {
		var s string
		if raw, ok := m[k]; ok {
			_ = json.Unmarshal(raw, &s)
		}
		delete(m, k)
		return s
	}
	pe.Type = str("type")
	pe.Title = str("title")
	pe.Detail = str("detail")
	pe.Code = str("code")
	pe.Instance = str("instance")
	if id := str("request_id"); id != "" {
		pe.RequestID = id
	}
	if raw, ok := m["status"]; ok {
		var s int
		if json.Unmarshal(raw, &s) == nil && s != 0 {
			pe.Status = s
		}
		delete(m, "status")
	}
	if raw, ok := m["errors"]; ok {
		_ = json.Unmarshal(raw, &pe.Errors)
		delete(m, "errors")
	}
	if len(m) > 0 {
		pe.Extensions = m
	}
	return nil
}

// problemFromValue reads a problem document held in a decoded value (a job's `error`).
func problemFromValue(v any) *ProblemError {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" || string(b) == "{}" || len(b) == 0 {
		return nil
	}
	pe := &ProblemError{Body: b}
	if decodeProblem(b, pe) != nil {
		return nil
	}
	return pe
}
