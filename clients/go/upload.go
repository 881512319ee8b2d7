package meridian

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// Multipart is a multipart/form-data body that is written while it is read: files are
// streamed from their readers, never held in memory. Pass it with its ContentType to a
// WithBody method. When every file reader is an io.Seeker (an *os.File, a bytes.Reader) the
// body can be sent again, so a request answered 429 or 503 is retried.
type Multipart struct {
	mu       sync.Mutex
	boundary string
	parts    []mpPart
	err      error
	pr       *io.PipeReader
	done     chan struct{} // closed when the current pass's writer has stopped
	started  bool
}

type mpPart struct {
	name, filename, contentType string
	data                        []byte
	r                           io.Reader
	start                       int64
	seekable                    bool
}

// NewMultipart starts an empty multipart body.
func NewMultipart() *Multipart {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return &Multipart{boundary: "meridian-" + hex.EncodeToString(b[:])}
}

// Field adds a text part.
func (m *Multipart) Field(name, value string) *Multipart {
	m.parts = append(m.parts, mpPart{name: name, data: []byte(value), seekable: true})
	return m
}

// JSONField adds a text part holding v's JSON encoding (what the API's `params` and `item`
// parts are).
func (m *Multipart) JSONField(name string, v any) *Multipart {
	b, err := json.Marshal(v)
	if err != nil && m.err == nil {
		m.err = fmt.Errorf("meridian: multipart part %q: %w", name, err)
	}
	m.parts = append(m.parts, mpPart{name: name, data: b, seekable: true})
	return m
}

// File adds a file part read from r (contentType may be empty: application/octet-stream).
func (m *Multipart) File(name, filename, contentType string, r io.Reader) *Multipart {
	p := mpPart{name: name, filename: filename, contentType: contentType, r: r}
	if s, ok := r.(io.Seeker); ok {
		if off, err := s.Seek(0, io.SeekCurrent); err == nil {
			p.start, p.seekable = off, true
		}
	}
	m.parts = append(m.parts, p)
	return m
}

// ContentType is the body's media type with its boundary.
func (m *Multipart) ContentType() string {
	return "multipart/form-data; boundary=" + m.boundary
}

func (m *Multipart) startLocked() {
	pr, pw := io.Pipe()
	m.pr = pr
	m.started = true
	done := make(chan struct{})
	m.done = done
	parts := m.parts
	boundary := m.boundary
	go func() {
		defer close(done)
		w := multipart.NewWriter(pw)
		_ = w.SetBoundary(boundary)
		for _, p := range parts {
			h := textproto.MIMEHeader{}
			disp := fmt.Sprintf(`form-data; name="%s"`, escapeQuotes(p.name))
			if p.r != nil {
				disp += fmt.Sprintf(`; filename="%s"`, escapeQuotes(p.filename))
				ct := p.contentType
				if ct == "" {
					ct = "application/octet-stream"
				}
				h.Set("Content-Type", ct)
			}
			h.Set("Content-Disposition", disp)
			pw2, err := w.CreatePart(h)
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			if p.r != nil {
				_, err = io.Copy(pw2, p.r)
			} else {
				_, err = pw2.Write(p.data)
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(w.Close())
	}()
}

func escapeQuotes(s string) string {
	return strings.NewReplacer("\\", "\\\\", `"`, "\\\"").Replace(s)
}

// Read reads the encoded body.
func (m *Multipart) Read(p []byte) (int, error) {
	m.mu.Lock()
	if m.err != nil {
		m.mu.Unlock()
		return 0, m.err
	}
	if !m.started {
		m.startLocked()
	}
	pr := m.pr
	m.mu.Unlock()
	return pr.Read(p)
}

// Seek supports what a retry needs: Seek(0, io.SeekCurrent) before reading, and
// Seek(0, io.SeekStart) to write the body again from the start (every file rewound).
func (m *Multipart) Seek(offset int64, whence int) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.parts {
		if !p.seekable {
			return 0, errors.New("meridian: a multipart file part cannot be rewound")
		}
	}
	switch {
	case offset == 0 && whence == io.SeekCurrent && !m.started:
		return 0, nil
	case offset == 0 && whence == io.SeekStart:
		if m.pr != nil {
			// Stop the previous pass and wait until it no longer reads the files.
			_ = m.pr.Close()
			<-m.done
		}
		for _, p := range m.parts {
			if s, ok := p.r.(io.Seeker); ok {
				if _, err := s.Seek(p.start, io.SeekStart); err != nil {
					return 0, err
				}
			}
		}
		m.started = false
		m.pr = nil
		return 0, nil
	}
	return 0, errors.New("meridian: multipart bodies only seek to their start")
}

// Close stops the writer of the current pass (the http package calls it once the request is
// sent).
func (m *Multipart) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pr != nil {
		return m.pr.Close()
	}
	return nil
}

// UploadDEM submits a DEM processing job with a GeoTIFF upload (POST /api/v1/dem/process,
// parts `file` and `params`), streaming the file. params is the processing request, e.g.
// map[string]any{"operations": []any{map[string]any{"type": "hillshade"}}}. The answer is the
// queued job; wait for it with WaitForJob.
func (c *Client) UploadDEM(ctx context.Context, file io.Reader, filename string, params any, opts ...RequestOption) (*DemJobView, error) {
	if filename == "" {
		filename = "dem.tif"
	}
	m := NewMultipart().File("file", filename, "image/tiff", file).JSONField("params", params)
	r := &apiRequest{method: http.MethodPost, path: "/api/v1/dem/process", body: m, contentType: m.ContentType()}
	var job DemJobView
	if _, err := c.doJSON(ctx, r, opts, &job); err != nil {
		return nil, err
	}
	return &job, nil
}

// SceneUpload is the answer to UploadEoScene.
type SceneUpload struct {
	// StatusCode is 201 when the Item was published at once (Cloud Optimized GeoTIFFs) and 202
	// when an eo.ingest job converts the files first (JobID; wait for it with WaitForJob).
	StatusCode int
	// Item is the published STAC Item (201).
	Item *GeoFeature
	// JobID and Location name the job of a 202.
	JobID    string
	Location string
	// Body is the answer as it came.
	Body json.RawMessage
}

// UploadEoScene adds a STAC Item to an EO collection by uploading its bands
// (POST /api/v1/eo/collections/{cid}/items as multipart/form-data): item is the `item` part
// (at least `id`, `datetime` and each asset's `eo:bands`), and each file of assets becomes the
// asset of its key. Files are streamed in key order.
func (c *Client) UploadEoScene(ctx context.Context, collection string, item any, assets map[string]io.Reader, opts ...RequestOption) (*SceneUpload, error) {
	m := NewMultipart().JSONField("item", item)
	keys := make([]string, 0, len(assets))
	for k := range assets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m.File(k, k+".tif", "image/tiff", assets[k])
	}
	r := &apiRequest{method: http.MethodPost, path: "/api/v1/eo/collections/" + url.PathEscape(collection) + "/items", body: m, contentType: m.ContentType()}
	resp, err := c.doRaw(ctx, r, opts)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := &SceneUpload{StatusCode: resp.StatusCode, Location: resp.Header.Get("Location")}
	if err := decodeBody(resp, &out.Body); err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusAccepted:
		var j struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(out.Body, &j)
		out.JobID = j.ID
		if out.JobID == "" || !strings.HasPrefix(out.JobID, "job_") {
			if id := JobIDFromLocation(out.Location); id != "" {
				out.JobID = id
			}
		}
	default:
		var f GeoFeature
		if err := json.Unmarshal(out.Body, &f); err != nil {
			return nil, fmt.Errorf("meridian: the uploaded item: %w", err)
		}
		out.Item = &f
	}
	return out, nil
}

// SavePointCloud downloads a point cloud (GET /api/v1/pointcloud/{id}/download: LAZ, LAS or
// COPC, original or classified, whole or cut) into w. While the server converts the file (202
// with Retry-After) it waits and asks again. It returns the bytes written.
func (c *Client) SavePointCloud(ctx context.Context, id string, params *DownloadPointCloudParams, w io.Writer, opts ...RequestOption) (int64, error) {
	for {
		r := &apiRequest{method: http.MethodGet, path: "/api/v1/pointcloud/" + url.PathEscape(id) + "/download"}
		params.encode(r)
		resp, err := c.doRaw(ctx, r, opts)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode == http.StatusAccepted {
			wait := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
			if wait <= 0 {
				wait = time.Second
			}
			discard(resp)
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return 0, ctx.Err()
			case <-t.C:
			}
			continue
		}
		n, err := io.Copy(w, resp.Body)
		_ = resp.Body.Close()
		return n, err
	}
}
