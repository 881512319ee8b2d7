package meridian

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newTestClient(t *testing.T, url string, opts ...Option) *Client {
	t.Helper()
	c, err := New(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func writeProblem(w http.ResponseWriter, status int, code string, extra map[string]any) {
	doc := map[string]any{"type": "/docs/problems#" + code, "title": http.StatusText(status), "status": status,
		"detail": "detail of " + code, "code": code, "errors": []any{}, "request_id": "req_test"}
	for k, v := range extra {
		doc[k] = v
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(doc)
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	var calls int32
	var bodies []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		if atomic.AddInt32(&calls, 1) == 1 {
			w.Header().Set("Retry-After", "1")
			writeProblem(w, 429, "rate_limited", nil)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"id":"zone_1","name":"example.com","status":"active","records":0,"nameservers":[],"soa_serial":1,"dnssec":"disabled","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`)
	}))
	defer srv.Close()
	var events []RetryEvent
	p := DefaultRetryPolicy()
	p.OnRetry = func(e RetryEvent) { events = append(events, e) }
	c := newTestClient(t, srv.URL, WithAPIKey("mrd_x"), WithRetryPolicy(p))
	start := time.Now()
	z, err := c.CreateZone(context.Background(), CreateZone{Name: "example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if z.ID != "zone_1" || z.CreatedAt.Year() != 2026 {
		t.Fatalf("zone %+v", z)
	}
	if el := time.Since(start); el < time.Second {
		t.Fatalf("retried after %v, before Retry-After", el)
	}
	if len(events) != 1 || events[0].Wait != time.Second || events[0].StatusCode != 429 || events[0].RetryAfter != "1" {
		t.Fatalf("events %+v", events)
	}
	if len(bodies) != 2 || bodies[0] != bodies[1] || !strings.Contains(bodies[0], "example.com") {
		t.Fatalf("bodies %q", bodies)
	}
}

func TestRetryLimits(t *testing.T) {
	var calls int32
	retryAfter := "0"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		atomic.AddInt32(&calls, 1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Retry-After", retryAfter)
		writeProblem(w, 503, "server_busy", nil)
	}))
	defer srv.Close()
	ctx := context.Background()

	// Attempts run out.
	c := newTestClient(t, srv.URL, WithRetryPolicy(RetryPolicy{MaxAttempts: 3}))
	_, err := c.ListZones(ctx, nil)
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Status != 503 || pe.Code != "server_busy" || calls != 3 || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err %v after %d calls", err, calls)
	}

	// A body that cannot be read twice is not retried.
	atomic.StoreInt32(&calls, 0)
	_, err = c.ImportZone(ctx, "zone_1", io.MultiReader(strings.NewReader("www 300 IN A 192.0.2.1\n")))
	if !errors.As(err, &pe) || pe.Status != 503 || calls != 1 {
		t.Fatalf("stream: err %v after %d calls", err, calls)
	}

	// A Retry-After beyond MaxRetryAfter is returned at once.
	atomic.StoreInt32(&calls, 0)
	retryAfter = "3600"
	c = newTestClient(t, srv.URL)
	_, err = c.ListZones(ctx, nil)
	if !errors.As(err, &pe) || pe.RetryAfter != time.Hour || calls != 1 {
		t.Fatalf("long Retry-After: err %v after %d calls", err, calls)
	}

	// Retries off.
	atomic.StoreInt32(&calls, 0)
	retryAfter = "0"
	c = newTestClient(t, srv.URL, WithoutRetries())
	if _, err = c.ListZones(ctx, nil); !errors.As(err, &pe) || calls != 1 {
		t.Fatalf("no retries: err %v after %d calls", err, calls)
	}

	// A wait that would end after the context's deadline is not started.
	retryAfter = "30"
	c = newTestClient(t, srv.URL)
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	if _, err = c.ListZones(dctx, nil); !errors.As(err, &pe) || pe.RetryAfter != 30*time.Second || time.Since(start) > 2*time.Second {
		t.Fatalf("wait past the deadline: %v after %v", err, time.Since(start))
	}
	// Cancelling the context ends a wait.
	cctx, cancel2 := context.WithCancel(ctx)
	time.AfterFunc(200*time.Millisecond, cancel2)
	start = time.Now()
	if _, err = c.ListZones(cctx, nil); !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("cancelled wait: %v after %v", err, time.Since(start))
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2015, 10, 21, 7, 27, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":                              0,
		"5":                             5 * time.Second,
		"0.5":                           500 * time.Millisecond,
		"-3":                            0,
		"Wed, 21 Oct 2015 07:28:00 GMT": time.Minute,
		"Wed, 21 Oct 2015 07:26:00 GMT": 0,
		"soon":                          0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
	p := RetryPolicy{MaxAttempts: 5, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for attempt := 1; attempt <= 4; attempt++ {
		d, ok := p.wait(attempt, "")
		base := 100 * time.Millisecond << uint(attempt-1)
		if base > time.Second {
			base = time.Second
		}
		if !ok || d < base/2 || d > base {
			t.Fatalf("back-off %d: %v (%v)", attempt, d, ok)
		}
	}
	if _, ok := p.wait(5, ""); ok {
		t.Fatal("retry after the last attempt")
	}
}

func TestProblemErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/dns/zones":
			w.Header().Set("X-Request-Id", "req_header")
			writeProblem(w, 422, "validation_failed", map[string]any{
				"errors": []any{
					map[string]any{"pointer": "/name", "code": "invalid_name", "detail": "not a domain"},
					map[string]any{"pointer": "", "code": "other", "detail": "whole"},
				},
				"zone_hint": "x",
			})
		case "/api/v1/ogc/wms":
			w.Header().Set("Content-Type", "text/xml")
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `<ServiceExceptionReport><ServiceException code="LayerNotDefined"/></ServiceExceptionReport>`)
		default:
			w.WriteHeader(404)
		}
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, WithoutRetries())
	ctx := context.Background()
	_, err := c.CreateZone(ctx, CreateZone{Name: "bad name"})
	var pe *ProblemError
	if !errors.As(err, &pe) {
		t.Fatalf("%T %v", err, err)
	}
	if pe.Status != 422 || pe.Code != "validation_failed" || pe.RequestID != "req_test" || pe.Title == "" || pe.Detail == "" {
		t.Fatalf("%+v", pe)
	}
	if got := strings.Join(pe.Pointers(), ","); got != "/name," {
		t.Fatalf("pointers %q", got)
	}
	if f, ok := pe.Field("/name"); !ok || f.Code != "invalid_name" {
		t.Fatalf("field %+v", f)
	}
	if string(pe.Extensions["zone_hint"]) != `"x"` || !errors.Is(err, ErrValidation) || errors.Is(err, ErrNotFound) {
		t.Fatalf("extensions %v", pe.Extensions)
	}
	if msg := err.Error(); !strings.Contains(msg, "422 validation_failed") || !strings.Contains(msg, "/name invalid_name") || !strings.Contains(msg, "req_test") {
		t.Fatalf("message %q", msg)
	}
	_, err = c.GetWms(ctx, &GetWmsParams{})
	if !errors.As(err, &pe) || pe.Status != 400 || !strings.Contains(pe.Detail, "LayerNotDefined") || !errors.Is(err, ErrBadRequest) {
		t.Fatalf("xml error: %v", err)
	}
	_, err = c.GetZone(ctx, "zone_x")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("404: %v", err)
	}
}

func TestAccessTokens(t *testing.T) {
	var exchanges, rejected int32
	var mu sync.Mutex
	seen := []string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/auth/token" {
			if r.Header.Get("X-Api-Key") != "mrd_key" || r.Header.Get("Authorization") != "" {
				writeProblem(w, 401, "unauthenticated", nil)
				return
			}
			n := atomic.AddInt32(&exchanges, 1)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"access_token":"tok%d","token_type":"Bearer","expires_in":1}`, n)
			return
		}
		auth := r.Header.Get("Authorization")
		mu.Lock()
		seen = append(seen, auth)
		mu.Unlock()
		if auth == "Bearer tok2" && atomic.AddInt32(&rejected, 1) == 1 {
			writeProblem(w, 401, "unauthenticated", nil)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, WithAPIKey("mrd_key"), WithAccessTokens())
	ctx := context.Background()
	if _, err := c.Healthz(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Healthz(ctx); err != nil {
		t.Fatal(err)
	}
	if exchanges != 1 {
		t.Fatalf("%d exchanges for a fresh token", exchanges)
	}
	// The token lasts a second and is renewed a quarter of its life early.
	time.Sleep(800 * time.Millisecond)
	// tok2 is refused once (revoked, say): the client gets tok3 and tries again.
	if _, err := c.Healthz(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := strings.Join(seen, ",")
	mu.Unlock()
	want := []string{"Bearer tok1", "Bearer tok1", "Bearer tok2", "Bearer tok3"}
	if got != strings.Join(want, ",") || atomic.LoadInt32(&exchanges) != 3 {
		t.Fatalf("authorizations %v after %d exchanges", got, exchanges)
	}

	// A plain key goes as a bearer token.
	k := newTestClient(t, srv.URL, WithAPIKey("mrd_plain"))
	if _, err := k.Healthz(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	last := seen[len(seen)-1]
	mu.Unlock()
	if last != "Bearer mrd_plain" {
		t.Fatalf("plain key sent as %q", last)
	}
	if _, err := New(srv.URL, WithAccessTokens()); err == nil {
		t.Fatal("WithAccessTokens without a key was accepted")
	}
}

func TestIteratorLinks(t *testing.T) {
	var srvURL string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/v1/dns/zones":
			off := r.URL.Query().Get("offset")
			switch off {
			case "":
				if r.URL.Query().Get("limit") != "2" || r.URL.Query().Get("name") != "a" {
					t.Errorf("first page query %v", r.URL.Query())
				}
				w.Header().Add("Link", `</v1/dns/zones?limit=2&offset=2&name=a>; rel="next", </v1/dns/zones?limit=2&offset=0>; rel="first"`)
				_, _ = io.WriteString(w, `{"zones":[{"id":"z1"},{"id":"z2"}],"total":5}`)
			case "2":
				// An absolute link naming another host: followed on the configured server.
				w.Header().Add("Link", `<http://elsewhere.invalid/v1/dns/zones?limit=2&offset=4>; rel="prev next"`)
				_, _ = io.WriteString(w, `{"zones":[{"id":"z3"},{"id":"z4"}],"total":5}`)
			case "4":
				_, _ = io.WriteString(w, `{"zones":[{"id":"z5"}],"total":5}`)
			}
		case r.URL.Path == "/api/v1/eo/search" && r.Method == http.MethodPost:
			var body map[string]any
			_ = json.NewDecoder(r.Body).Decode(&body)
			if body["token"] == nil {
				if body["limit"] != float64(1) {
					t.Errorf("first search body %v", body)
				}
				fmt.Fprintf(w, `{"type":"FeatureCollection","features":[{"type":"Feature","id":"i1","geometry":null,"properties":{"eo:cloud_cover":3},"collection":"c"}],
				 "links":[{"rel":"next","href":"%s/api/v1/eo/search","method":"POST","body":{"token":"t2"},"merge":true}],"context":{"matched":2}}`, srvURL)
				return
			}
			if body["token"] != "t2" || body["limit"] != float64(1) {
				t.Errorf("second search body %v", body)
			}
			_, _ = io.WriteString(w, `{"type":"FeatureCollection","features":[{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}],"links":[{"rel":"self","href":"x"}]}`)
		case r.URL.Path == "/loop":
			w.Header().Add("Link", `</loop>; rel=next`)
			_, _ = io.WriteString(w, `{"items":[1]}`)
		default:
			w.WriteHeader(404)
		}
	}))
	defer srv.Close()
	srvURL = srv.URL
	c := newTestClient(t, srv.URL)
	ctx := context.Background()
	it := c.AllZones(&ListZonesParams{Name: "a", Limit: 2})
	var ids []string
	for it.Next(ctx) {
		ids = append(ids, it.Item().ID)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "z1,z2,z3,z4,z5" || it.Pages() != 3 {
		t.Fatalf("%v over %d pages", ids, it.Pages())
	}
	if total, ok := it.Total(); !ok || total != 5 {
		t.Fatalf("total %d %v", total, ok)
	}

	items, err := c.SearchEoItemsPost(map[string]any{"limit": 1}).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].ID != "i1" || items[1].ID != "7" || string(items[0].Extra["collection"]) != `"c"` {
		t.Fatalf("items %+v", items)
	}
	if items[0].Property("eo:cloud_cover") != "3" {
		t.Fatalf("property %q", items[0].Property("eo:cloud_cover"))
	}

	loop := Iterate[int](c, http.MethodGet, "/loop", "items")
	n := 0
	for loop.Next(ctx) {
		n++
	}
	if loop.Err() == nil || n != 1 {
		t.Fatalf("a repeating next link: %d items, err %v", n, loop.Err())
	}
}

func TestGeoFeatureJSON(t *testing.T) {
	in := `{"type":"Feature","id":"p1","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"lot":"1","n":2},"assets":{"B1":{}},"bbox":[1,2,1,2]}`
	var f GeoFeature
	if err := json.Unmarshal([]byte(in), &f); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var a, b map[string]any
	_ = json.Unmarshal([]byte(in), &a)
	_ = json.Unmarshal(out, &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("round trip\n%s\n%s", in, out)
	}
	if f.Property("n") != "2" || f.Property("lot") != "1" || f.Property("none") != "" {
		t.Fatal("properties")
	}
}

func TestConditionalAndCapture(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Header.Get("If-Match") != "" && r.Header.Get("If-Match") != `"v1"` {
			writeProblem(w, 412, "precondition_failed", nil)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"rec_1","zone_id":"zone_1","type":"A","name":"www.example.com","content":"192.0.2.1","ttl":300,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL)
	ctx := context.Background()
	var resp *http.Response
	rec, err := c.GetRecord(ctx, "zone_1", "rec_1", CaptureResponse(&resp))
	if err != nil || rec.Content != "192.0.2.1" || resp.Header.Get("ETag") != `"v1"` {
		t.Fatalf("%+v %v", rec, err)
	}
	if _, err := c.GetRecord(ctx, "zone_1", "rec_1", IfNoneMatch(`"v1"`)); !errors.Is(err, ErrNotModified) {
		t.Fatalf("304: %v", err)
	}
	if _, err := c.UpdateRecord(ctx, "zone_1", "rec_1", &UpdateRecordParams{IfMatch: `"v0"`}, RecordBody{Content: Ptr("192.0.2.2")}); !errors.Is(err, ErrPreconditionFailed) {
		t.Fatalf("412: %v", err)
	}
	if _, err := c.UpdateRecord(ctx, "zone_1", "rec_1", nil, RecordBody{Content: Ptr("192.0.2.2")}, IfMatch(`"v1"`)); err != nil {
		t.Fatalf("If-Match option: %v", err)
	}
}

func TestMultipartUploadRetried(t *testing.T) {
	var calls int32
	type seenPart struct{ name, filename, data string }
	var got [][]seenPart
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/form-data" {
			t.Errorf("content type %q", r.Header.Get("Content-Type"))
		}
		mr := multipart.NewReader(r.Body, params["boundary"])
		var parts []seenPart
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Errorf("multipart: %v", err)
				break
			}
			b, _ := io.ReadAll(p)
			parts = append(parts, seenPart{p.FormName(), p.FileName(), string(b)})
		}
		mu.Lock()
		got = append(got, parts)
		mu.Unlock()
		if atomic.AddInt32(&calls, 1) == 1 {
			w.Header().Set("Retry-After", "0")
			writeProblem(w, 429, "rate_limited", nil)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(202)
		_, _ = io.WriteString(w, `{"id":"job_1","status":"queued","progress":0,"cancel_requested":false,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","source":{},"operations":[],"outputs":[],"tiles":[]}`)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL)
	file := bytes.NewReader(bytes.Repeat([]byte("tiff"), 100000))
	job, err := c.UploadDEM(context.Background(), file, "dem.tif", map[string]any{"operations": []any{map[string]any{"type": "slope"}}})
	if err != nil {
		t.Fatal(err)
	}
	if job.ID != "job_1" || len(got) != 2 {
		t.Fatalf("job %+v after %d requests", job, len(got))
	}
	for _, parts := range got {
		if len(parts) != 2 || parts[0].name != "file" || parts[0].filename != "dem.tif" || len(parts[0].data) != 400000 ||
			parts[1].name != "params" || parts[1].data != `{"operations":[{"type":"slope"}]}` {
			t.Fatalf("parts %+v", parts)
		}
	}
	// A file that cannot be rewound is sent once.
	atomic.StoreInt32(&calls, 0)
	got = nil
	_, err = c.UploadDEM(context.Background(), io.MultiReader(strings.NewReader("tiff")), "dem.tif", map[string]any{})
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Status != 429 || len(got) != 1 {
		t.Fatalf("unseekable: %v after %d requests", err, len(got))
	}
}

// multiAnswer stands for the generated answers of operations with several statuses.
type multiAnswer struct{ v any }

func (m multiAnswer) Value() any { return m.v }

func TestAsAndDo(t *testing.T) {
	v, err := As[struct{ ID string }](multiAnswer{map[string]any{"id": "trees"}})
	if err != nil || v.ID != "trees" {
		t.Fatalf("%+v %v", v, err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"method":%q,"path":%q,"body":%q,"ct":%q}`, r.Method, r.URL.RequestURI(), b, r.Header.Get("Content-Type"))
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL+"/prefix/")
	var out map[string]string
	if err := c.Do(context.Background(), "PUT", "/things/1?x=y", map[string]int{"a": 1}, &out); err != nil {
		t.Fatal(err)
	}
	if out["method"] != "PUT" || out["path"] != "/prefix/things/1?x=y" || out["body"] != `{"a":1}` || out["ct"] != "application/json" {
		t.Fatalf("%v", out)
	}
}
