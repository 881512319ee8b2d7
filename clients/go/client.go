package meridian

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// Client calls a Meridian server. It is safe for concurrent use. Make one with New.
//
// Every API operation of the OpenAPI document is a method of Client (operations_gen.go); the
// methods in this package's other files are the layer over them: authentication, paging,
// retries, typed problems, uploads, downloads, job waiting, webhooks and telemetry.
type Client struct {
	base          *url.URL
	hc            *http.Client
	apiKey        string
	bearer        string
	useTokens     bool
	refreshMargin time.Duration
	retry         RetryPolicy
	userAgent     string
	header        http.Header

	tokMu     sync.Mutex
	token     string
	tokenExp  time.Time
	tokenLive bool
}

// Option configures a Client.
type Option func(*Client) error

// WithAPIKey authenticates every request with an API key (`mrd_...`), sent as
// `Authorization: Bearer`. With WithAccessTokens the key is only used to obtain access tokens.
func WithAPIKey(key string) Option {
	return func(c *Client) error {
		c.apiKey = strings.TrimSpace(key)
		return nil
	}
}

// WithAccessTokens makes the client trade its API key for short-lived access tokens
// (POST /api/v1/auth/token) and send those instead; a token is renewed before it expires
// (and once more if the server refuses it as expired or revoked).
func WithAccessTokens() Option {
	return func(c *Client) error {
		c.useTokens = true
		return nil
	}
}

// WithTokenRefreshMargin sets how long before its expiry an access token is renewed
// (default one minute, at most a quarter of the token's lifetime).
func WithTokenRefreshMargin(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 {
			return errors.New("meridian: negative token refresh margin")
		}
		c.refreshMargin = d
		return nil
	}
}

// WithBearerToken authenticates with a fixed access token (or API key) that the client does
// not renew.
func WithBearerToken(token string) Option {
	return func(c *Client) error {
		c.bearer = strings.TrimSpace(token)
		return nil
	}
}

// WithHTTPClient sets the http.Client requests go through (default: a client without a
// global timeout; use contexts for deadlines).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("meridian: nil http.Client")
		}
		c.hc = hc
		return nil
	}
}

// WithRetryPolicy sets how 429 and 503 answers are retried (DefaultRetryPolicy unless set).
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) error {
		c.retry = p
		return nil
	}
}

// WithoutRetries turns retries off: a 429 or 503 is returned at once as a *ProblemError.
func WithoutRetries() Option {
	return WithRetryPolicy(NoRetries)
}

// WithUserAgent sets the User-Agent header (default "meridian-go/<Version>").
func WithUserAgent(ua string) Option {
	return func(c *Client) error {
		c.userAgent = ua
		return nil
	}
}

// WithHeader adds a header to every request.
func WithHeader(key, value string) Option {
	return func(c *Client) error {
		c.header.Add(key, value)
		return nil
	}
}

// New makes a client for the server at baseURL (e.g. "http://127.0.0.1:8080"). Paths of the
// API are resolved against it, so a base URL with a path prefix (a reverse proxy) works too.
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return nil, fmt.Errorf("meridian: base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("meridian: base URL %q: the scheme must be http or https", baseURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("meridian: base URL %q has no host", baseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	u.RawQuery = ""
	u.Fragment = ""
	c := &Client{
		base:          u,
		hc:            &http.Client{},
		refreshMargin: time.Minute,
		retry:         DefaultRetryPolicy(),
		userAgent:     "meridian-go/" + Version,
		header:        http.Header{},
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	if c.useTokens && c.apiKey == "" {
		return nil, errors.New("meridian: WithAccessTokens needs WithAPIKey")
	}
	return c, nil
}

// BaseURL returns the server's base URL.
func (c *Client) BaseURL() string { return c.base.String() }

// WithOptions returns a copy of the client with further options (another API key, no retries,
// ...). The copy shares the http.Client but not the access token.
func (c *Client) WithOptions(opts ...Option) (*Client, error) {
	n := &Client{
		base:          c.base,
		hc:            c.hc,
		apiKey:        c.apiKey,
		bearer:        c.bearer,
		useTokens:     c.useTokens,
		refreshMargin: c.refreshMargin,
		retry:         c.retry,
		userAgent:     c.userAgent,
		header:        c.header.Clone(),
	}
	for _, o := range opts {
		if err := o(n); err != nil {
			return nil, err
		}
	}
	if n.useTokens && n.apiKey == "" {
		return nil, errors.New("meridian: WithAccessTokens needs WithAPIKey")
	}
	return n, nil
}

// RequestOption changes one request.
type RequestOption func(*requestConfig)

type requestConfig struct {
	header  http.Header
	capture **http.Response
	retry   *RetryPolicy
	noAuth  bool
}

// RequestHeader adds a header to the request.
func RequestHeader(key, value string) RequestOption {
	return func(rc *requestConfig) { rc.header.Add(key, value) }
}

// IfMatch makes a change conditional on the resource's ETag (412 when it is stale).
func IfMatch(etag string) RequestOption { return RequestHeader("If-Match", etag) }

// IfNoneMatch makes a read conditional: an unchanged resource answers 304, returned as
// ErrNotModified by the methods that decode JSON.
func IfNoneMatch(etag string) RequestOption { return RequestHeader("If-None-Match", etag) }

// RequestID sends X-Request-Id; the server echoes it and puts it in problem documents.
func RequestID(id string) RequestOption { return RequestHeader("X-Request-Id", id) }

// ByteRange asks for bytes start..end inclusive (HTTP Range); end < 0 means to the end.
func ByteRange(start, end int64) RequestOption {
	if end < 0 {
		return RequestHeader("Range", fmt.Sprintf("bytes=%d-", start))
	}
	return RequestHeader("Range", fmt.Sprintf("bytes=%d-%d", start, end))
}

// CaptureResponse stores the final *http.Response (status and headers: ETag, Location,
// RateLimit-*) in *dst. Its body has been read already, except for methods that return the
// response themselves.
func CaptureResponse(dst **http.Response) RequestOption {
	return func(rc *requestConfig) { rc.capture = dst }
}

// RetryWith uses another retry policy for this request.
func RetryWith(p RetryPolicy) RequestOption {
	return func(rc *requestConfig) { rc.retry = &p }
}

// NoRetry turns retries off for this request.
func NoRetry() RequestOption { return RetryWith(NoRetries) }

// apiRequest is one call, as the generated methods describe it.
type apiRequest struct {
	method      string
	path        string // below the base URL, already escaped; or an absolute URL
	query       url.Values
	header      http.Header
	body        io.Reader
	contentType string
	noAuth      bool
}

func (r *apiRequest) setQuery(k, v string) {
	if r.query == nil {
		r.query = url.Values{}
	}
	r.query.Set(k, v)
}

func (r *apiRequest) addQuery(k, v string) {
	if r.query == nil {
		r.query = url.Values{}
	}
	r.query.Add(k, v)
}

func (r *apiRequest) setHeader(k, v string) {
	if r.header == nil {
		r.header = http.Header{}
	}
	r.header.Set(k, v)
}

func (r *apiRequest) addHeader(k, v string) {
	if r.header == nil {
		r.header = http.Header{}
	}
	r.header.Add(k, v)
}

// url resolves the request against the base URL. Absolute URLs (links the server gave) are
// kept when they point at the same server; otherwise only their path and query are used, so
// credentials never leave the configured server.
func (c *Client) url(r *apiRequest) (string, error) {
	var u *url.URL
	if strings.HasPrefix(r.path, "http://") || strings.HasPrefix(r.path, "https://") {
		abs, err := url.Parse(r.path)
		if err != nil {
			return "", err
		}
		if !strings.EqualFold(abs.Host, c.base.Host) || abs.Scheme != c.base.Scheme {
			abs.Scheme = c.base.Scheme
			abs.Host = c.base.Host
		}
		u = abs
	} else {
		p := r.path
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		var err error
		u, err = url.Parse(c.base.Scheme + "://" + c.base.Host + c.base.EscapedPath() + p)
		if err != nil {
			return "", err
		}
	}
	if len(r.query) > 0 {
		q := u.Query()
		for k, vs := range r.query {
			q.Del(k)
			for _, v := range vs {
				q.Add(k, v)
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// rewinder returns a function giving the body again for another attempt, or nil when the body
// cannot be read twice.
func rewinder(body io.Reader) (func() (io.Reader, error), bool) {
	if body == nil {
		return func() (io.Reader, error) { return nil, nil }, true
	}
	s, ok := body.(io.Seeker)
	if !ok {
		return nil, false
	}
	off, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, false
	}
	first := true
	return func() (io.Reader, error) {
		if first {
			first = false
			return body, nil
		}
		if _, err := s.Seek(off, io.SeekStart); err != nil {
			return nil, err
		}
		return body, nil
	}, true
}

// send performs the request with authentication and retries, and returns the final answer
// whatever its status.
func (c *Client) send(ctx context.Context, r *apiRequest, opts []RequestOption) (*http.Response, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	rc := &requestConfig{header: http.Header{}}
	for _, o := range opts {
		o(rc)
	}
	policy := c.retry
	if rc.retry != nil {
		policy = *rc.retry
	}
	target, err := c.url(r)
	if err != nil {
		return nil, fmt.Errorf("meridian: %s %s: %w", r.method, r.path, err)
	}
	getBody, rewindable := rewinder(r.body)
	if !rewindable {
		getBody = func() (io.Reader, error) { return r.body, nil }
	}
	refreshed := false
	var prev *trackedBody
	for attempt := 1; ; attempt++ {
		if prev != nil {
			// The http package may still read the previous attempt's body after answering:
			// rewind only once it has let go of it.
			select {
			case <-prev.closed:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		body, err := getBody()
		if err != nil {
			return nil, fmt.Errorf("meridian: rewinding the body of %s %s: %w", r.method, r.path, err)
		}
		var reqBody io.Reader
		var length int64 = -1
		if body != nil {
			// Bodies of unknown length are sent chunked.
			switch b := body.(type) {
			case interface{ Len() int }:
				length = int64(b.Len())
			case *os.File:
				if st, err := b.Stat(); err == nil && st.Mode().IsRegular() {
					if off, err := b.Seek(0, io.SeekCurrent); err == nil {
						length = st.Size() - off
					}
				}
			}
			prev = &trackedBody{r: body, closed: make(chan struct{})}
			reqBody = prev
			if length == 0 {
				reqBody = http.NoBody
				prev.Close()
			}
		}
		req, err := http.NewRequestWithContext(ctx, r.method, target, reqBody)
		if err != nil {
			return nil, err
		}
		if length > 0 {
			req.ContentLength = length
		}
		req.Header.Set("User-Agent", c.userAgent)
		req.Header.Set("Accept", "application/json, application/problem+json;q=0.9, */*;q=0.8")
		if r.contentType != "" && body != nil {
			req.Header.Set("Content-Type", r.contentType)
		}
		for k, vs := range c.header {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		for k, vs := range r.header {
			req.Header[k] = append([]string(nil), vs...)
		}
		for k, vs := range rc.header {
			req.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
		usedToken := false
		if !r.noAuth && !rc.noAuth {
			usedToken, err = c.authorize(ctx, req)
			if err != nil {
				return nil, err
			}
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			return nil, err
		}
		if rc.capture != nil {
			*rc.capture = resp
		}
		if resp.StatusCode == http.StatusUnauthorized && usedToken && !refreshed && rewindable {
			// The token expired early or was revoked with its key: try once with a new one.
			refreshed = true
			discard(resp)
			c.dropToken()
			attempt--
			continue
		}
		if (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) && rewindable {
			wait, ok := policy.wait(attempt, resp.Header.Get("Retry-After"))
			if dl, has := ctx.Deadline(); ok && has && time.Until(dl) < wait {
				ok = false // the answer would come after the deadline: return this one
			}
			if ok {
				if policy.OnRetry != nil {
					policy.OnRetry(RetryEvent{Method: r.method, URL: target, Attempt: attempt, StatusCode: resp.StatusCode, Wait: wait, RetryAfter: resp.Header.Get("Retry-After")})
				}
				discard(resp)
				t := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					t.Stop()
					return nil, ctx.Err()
				case <-t.C:
				}
				continue
			}
		}
		return resp, nil
	}
}

// trackedBody is a request body that says when the http package is done with it. Closing it
// does not close the caller's reader (a file stays open), except a Multipart's current pass.
type trackedBody struct {
	r      io.Reader
	once   sync.Once
	closed chan struct{}
}

func (b *trackedBody) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *trackedBody) Close() error {
	b.once.Do(func() {
		if m, ok := b.r.(*Multipart); ok {
			_ = m.Close()
		}
		close(b.closed)
	})
	return nil
}

// discard drains a little of a body (so the connection can be reused) and closes it.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// doRaw sends the request and returns the answer with its body open when the status is below
// 400; otherwise the body is read into a *ProblemError.
func (c *Client) doRaw(ctx context.Context, r *apiRequest, opts []RequestOption) (*http.Response, error) {
	resp, err := c.send(ctx, r, opts)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		return nil, problemFromResponse(r.method, resp)
	}
	return resp, nil
}

// ErrNotModified is returned for a 304 answer to a conditional read (IfNoneMatch).
var ErrNotModified = errors.New("meridian: not modified")

// doJSON sends the request and decodes a JSON answer into out (when out is not nil and there
// is a body). It reports whether a body was decoded.
func (c *Client) doJSON(ctx context.Context, r *apiRequest, opts []RequestOption, out any) (bool, error) {
	resp, err := c.doRaw(ctx, r, opts)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified {
		return false, ErrNotModified
	}
	if resp.StatusCode >= 300 {
		return false, problemFromResponse(r.method, resp)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return false, nil
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, fmt.Errorf("meridian: reading the answer of %s %s: %w", r.method, resp.Request.URL.Path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return false, nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return false, fmt.Errorf("meridian: decoding the answer of %s %s (%s): %w", r.method, resp.Request.URL.Path, resp.Header.Get("Content-Type"), err)
	}
	return true, nil
}

// decodeBody decodes a JSON body (nothing when it is empty). The caller closes it.
func decodeBody(resp *http.Response, out any) error {
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("meridian: reading the answer: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("meridian: decoding the answer of %s (%s): %w", resp.Request.URL.Path, resp.Header.Get("Content-Type"), err)
	}
	return nil
}

// Do sends any request below the base URL (or to an absolute URL of the same server), with
// the client's authentication, retries and errors. body, when not nil, is sent as JSON, except
// an io.Reader or a []byte, which are sent as they are (application/octet-stream unless a
// RequestHeader("Content-Type", ...) option says otherwise). out, when not nil, receives the
// JSON answer.
func (c *Client) Do(ctx context.Context, method, path string, body any, out any, opts ...RequestOption) error {
	r := &apiRequest{method: method, path: path}
	switch b := body.(type) {
	case nil:
	case io.Reader:
		r.body, r.contentType = b, "application/octet-stream"
	case []byte:
		r.body, r.contentType = bytes.NewReader(b), "application/octet-stream"
	default:
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r.body, r.contentType = bytes.NewReader(data), "application/json"
	}
	_, err := c.doJSON(ctx, r, opts, out)
	return err
}

// Download GETs href (a path, or a link the server gave such as a job output's href) with the
// client's credentials and returns the answer with its body open: close it. Use ByteRange for
// part of a file (206). Links to other hosts are fetched from the configured server instead.
func (c *Client) Download(ctx context.Context, href string, opts ...RequestOption) (*http.Response, error) {
	return c.doRaw(ctx, &apiRequest{method: http.MethodGet, path: href}, opts)
}

// ReadRange reads length bytes of href from offset with an HTTP Range request and checks that
// the server answered with that range (206 and Content-Range).
func (c *Client) ReadRange(ctx context.Context, href string, offset, length int64, opts ...RequestOption) ([]byte, error) {
	if offset < 0 || length <= 0 {
		return nil, errors.New("meridian: ReadRange needs offset >= 0 and length > 0")
	}
	opts = append(append([]RequestOption(nil), opts...), ByteRange(offset, offset+length-1))
	resp, err := c.Download(ctx, href, opts...)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		return nil, fmt.Errorf("meridian: range request for %s answered %s, not 206", href, resp.Status)
	}
	var start, end int64
	if _, err := fmt.Sscanf(resp.Header.Get("Content-Range"), "bytes %d-%d/", &start, &end); err != nil || start != offset {
		return nil, fmt.Errorf("meridian: range request for %s: unexpected Content-Range %q", href, resp.Header.Get("Content-Range"))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, length+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != end-start+1 {
		return nil, fmt.Errorf("meridian: range request for %s: %d bytes for Content-Range %q", href, len(data), resp.Header.Get("Content-Range"))
	}
	return data, nil
}

// Ptr returns a pointer to v, for the optional fields of request bodies.
func Ptr[T any](v T) *T { return &v }

// As converts a decoded value (a map from a free-form answer, a generated struct, or the
// multi-status answer of an operation) to T by way of JSON. It lets code keep working when the
// document gives a free-form answer a type of its own.
func As[T any](v any) (T, error) {
	var out T
	if w, ok := v.(interface{ Value() any }); ok {
		v = w.Value()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(b, &out)
	return out, err
}

// JSONReader returns a reader of v's JSON encoding, for the WithBody methods (it can be
// rewound, so those requests are retried after a 429 or 503).
func JSONReader(v any) io.Reader {
	b, err := json.Marshal(v)
	if err != nil {
		return &errReader{err: err}
	}
	return bytes.NewReader(b)
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

// mediaType is the answer's media type in lower case, without parameters.
func mediaType(resp *http.Response) string {
	ct := resp.Header.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}
