package meridian

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// SensorReading is one reading of a twin's sensor, as the readings list and the telemetry
// WebSocket give it.
type SensorReading struct {
	SensorID string          `json:"sensorId"`
	Value    json.RawMessage `json:"value"`
	TS       time.Time       `json:"ts"`
}

// TelemetryMessage is one message of a twin's telemetry WebSocket: a reading (Type "") or a
// notice ("hello", "clock", "gap", "subscribed", "error").
type TelemetryMessage struct {
	Type     string          `json:"type,omitempty"`
	SensorID string          `json:"sensorId,omitempty"`
	Value    json.RawMessage `json:"value,omitempty"`
	TS       time.Time       `json:"ts"`
	// Raw is the message as received.
	Raw json.RawMessage `json:"-"`
}

// IsReading reports whether the message is a sensor reading.
func (m TelemetryMessage) IsReading() bool { return m.Type == "" && m.SensorID != "" }

// Reading returns the message as a SensorReading.
func (m TelemetryMessage) Reading() SensorReading {
	return SensorReading{SensorID: m.SensorID, Value: m.Value, TS: m.TS}
}

// Float returns a numeric reading's value.
func (m TelemetryMessage) Float() (float64, error) {
	var f float64
	err := json.Unmarshal(m.Value, &f)
	return f, err
}

// TelemetryOptions tune StreamTelemetry.
type TelemetryOptions struct {
	// Since asks for the stored readings after this instant first, then the live ones
	// (resume). Zero: live readings only.
	Since time.Time
	// Sensors limits the feed to these sensors (nil: all).
	Sensors []string
	// NoReconnect turns automatic reconnection off: a dropped connection ends Next with its
	// error. By default the stream reconnects, resuming with `since` at the last reading seen,
	// and drops the readings it already delivered.
	NoReconnect bool
	// MaxReconnects is how many reconnections in a row may fail before Next gives up (default 5).
	MaxReconnects int
	// MaxMessageBytes limits one message (default 16 MiB).
	MaxMessageBytes int64
	// Buffer is how many received messages wait for Next (default 1024); a full buffer slows
	// the reading, and the server then sends a `gap` notice.
	Buffer int
}

// TelemetryStream is a twin's live telemetry over a WebSocket (/api/v1/realtime/twin/{id}).
// Read it with Next; it answers the server's pings while it runs, and reconnects with `since`
// after a dropped connection so that no stored reading is missed (the server's `hello` notice
// then comes again). It ends when Close is called, when the server closes it for good (the
// twin deleted: 1000; bad messages: 1008) or when reconnecting keeps failing.
type TelemetryStream struct {
	c     *Client
	twin  string
	opts  TelemetryOptions
	msgs  chan streamItem
	close chan struct{}

	mu         sync.Mutex
	conn       *wsConn
	sensors    []string
	lastTS     time.Time
	resumeSet  bool            // lastTS is the time of a delivered reading
	recent     map[string]bool // sensor|ts of readings at lastTS - 1 ms and after
	reconnects int
	closed     bool
	closeOnce  sync.Once
}

type streamItem struct {
	msg TelemetryMessage
	err error
}

// StreamTelemetry connects to a twin's telemetry WebSocket with the client's credentials; ctx
// bounds the connection's opening only.
func (c *Client) StreamTelemetry(ctx context.Context, twinID string, opts TelemetryOptions) (*TelemetryStream, error) {
	if opts.MaxReconnects <= 0 {
		opts.MaxReconnects = 5
	}
	if opts.Buffer <= 0 {
		opts.Buffer = 1024
	}
	s := &TelemetryStream{c: c, twin: twinID, opts: opts, sensors: opts.Sensors, recent: map[string]bool{}, close: make(chan struct{})}
	if !opts.Since.IsZero() {
		s.lastTS = opts.Since
	}
	conn, err := s.dial(ctx, opts.Since)
	if err != nil {
		return nil, err
	}
	s.conn = conn
	s.msgs = make(chan streamItem, opts.Buffer)
	go s.run(conn)
	return s, nil
}

func (s *TelemetryStream) dial(ctx context.Context, since time.Time) (*wsConn, error) {
	u, err := url.Parse(s.c.base.String() + "/api/v1/realtime/twin/" + url.PathEscape(s.twin))
	if err != nil {
		return nil, err
	}
	if u.Scheme == "https" {
		u.Scheme = "wss"
	} else {
		u.Scheme = "ws"
	}
	q := url.Values{}
	if !since.IsZero() {
		q.Set("since", since.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	}
	s.mu.Lock()
	if len(s.sensors) > 0 {
		q.Set("sensors", strings.Join(s.sensors, ","))
	}
	s.mu.Unlock()
	u.RawQuery = q.Encode()
	h := http.Header{}
	h.Set("User-Agent", s.c.userAgent)
	for k, vs := range s.c.header {
		h[k] = append([]string(nil), vs...)
	}
	req := &http.Request{Header: h}
	if _, err := s.c.authorize(ctx, req); err != nil {
		return nil, err
	}
	var tlsConfig = transportTLS(s.c.hc)
	return dialWebSocket(ctx, u, h, tlsConfig, s.opts.MaxMessageBytes)
}

// run reads messages into the channel until the connection ends, then reconnects.
func (s *TelemetryStream) run(conn *wsConn) {
	failures := 0
	for {
		err := s.pump(conn)
		if s.isClosed() {
			close(s.msgs)
			return
		}
		var ce *CloseError
		final := s.opts.NoReconnect ||
			(errors.As(err, &ce) && (ce.Code == CloseNormal || ce.Code == ClosePolicyViolation || ce.Code == CloseUnsupportedData))
		if final {
			s.deliver(streamItem{err: err})
			close(s.msgs)
			return
		}
		// Reconnect, resuming after the last reading delivered.
		for {
			wait := time.Duration(failures) * 500 * time.Millisecond
			if wait > 5*time.Second {
				wait = 5 * time.Second
			}
			select {
			case <-s.close:
				close(s.msgs)
				return
			case <-time.After(wait):
			}
			s.mu.Lock()
			since, fromReading := s.lastTS, s.resumeSet
			s.mu.Unlock()
			if fromReading {
				since = since.Add(-time.Millisecond)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			next, derr := s.dial(ctx, since)
			cancel()
			if derr == nil {
				failures = 0
				s.mu.Lock()
				s.conn = next
				s.reconnects++
				s.mu.Unlock()
				if s.isClosed() {
					_ = next.Close(CloseNormal, "")
					close(s.msgs)
					return
				}
				conn = next
				break
			}
			failures++
			var pe *ProblemError
			if failures >= s.opts.MaxReconnects || (errors.As(derr, &pe) && pe.Status >= 400 && pe.Status < 500 && pe.Status != 429) {
				s.deliver(streamItem{err: fmt.Errorf("meridian: telemetry: reconnecting after %v: %w", err, derr)})
				close(s.msgs)
				return
			}
		}
	}
}

func (s *TelemetryStream) deliver(it streamItem) bool {
	select {
	case s.msgs <- it:
		return true
	case <-s.close:
		return false
	}
}

// pump forwards the messages of one connection.
func (s *TelemetryStream) pump(conn *wsConn) error {
	for {
		op, data, err := conn.ReadMessage()
		if err != nil {
			return err
		}
		if op != wsText {
			continue
		}
		var m TelemetryMessage
		if err := json.Unmarshal(data, &m); err != nil {
			m = TelemetryMessage{Type: "invalid"}
		}
		m.Raw = data
		if m.IsReading() && !s.accept(m) {
			continue
		}
		if !s.deliver(streamItem{msg: m}) {
			return errors.New("closed")
		}
	}
}

// accept drops a reading already delivered before a reconnection, and records the resume
// point.
func (s *TelemetryStream) accept(m TelemetryMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := m.SensorID + "|" + m.TS.UTC().Format(time.RFC3339Nano)
	if s.recent[key] {
		return false
	}
	if m.TS.After(s.lastTS) || !s.resumeSet {
		s.lastTS = m.TS
		s.resumeSet = true
		cut := m.TS.Add(-time.Millisecond)
		for k := range s.recent {
			if i := strings.LastIndexByte(k, '|'); i >= 0 {
				if t, err := time.Parse(time.RFC3339Nano, k[i+1:]); err == nil && t.Before(cut) {
					delete(s.recent, k)
				}
			}
		}
	}
	if !m.TS.Before(s.lastTS.Add(-time.Millisecond)) {
		s.recent[key] = true
	}
	return true
}

// Next returns the next message. After the stream ends (Close, the twin deleted, reconnection
// given up) it returns the reason; after Close, io.EOF-like ErrStreamClosed.
func (s *TelemetryStream) Next(ctx context.Context) (TelemetryMessage, error) {
	select {
	case it, ok := <-s.msgs:
		if !ok {
			return TelemetryMessage{}, ErrStreamClosed
		}
		return it.msg, it.err
	case <-ctx.Done():
		return TelemetryMessage{}, ctx.Err()
	}
}

// ErrStreamClosed is returned by Next once the stream is over.
var ErrStreamClosed = errors.New("meridian: telemetry stream closed")

// NextReading returns the next reading, skipping notices.
func (s *TelemetryStream) NextReading(ctx context.Context) (SensorReading, error) {
	for {
		m, err := s.Next(ctx)
		if err != nil {
			return SensorReading{}, err
		}
		if m.IsReading() {
			return m.Reading(), nil
		}
	}
}

// Subscribe changes the sensors of the feed (nil: all); the server answers with a
// `subscribed` notice. Reconnections keep the choice.
func (s *TelemetryStream) Subscribe(sensors []string) error {
	s.mu.Lock()
	s.sensors = sensors
	conn := s.conn
	s.mu.Unlock()
	msg := map[string]any{"type": "subscribe", "sensors": sensors}
	if sensors == nil {
		msg["sensors"] = nil
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return conn.WriteText(string(b))
}

// LastReadingTime is the time of the latest reading delivered: where a new stream would
// resume with TelemetryOptions.Since.
func (s *TelemetryStream) LastReadingTime() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastTS
}

// Reconnects counts the reconnections so far.
func (s *TelemetryStream) Reconnects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reconnects
}

func (s *TelemetryStream) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close ends the stream with a normal closure.
func (s *TelemetryStream) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		conn := s.conn
		s.mu.Unlock()
		close(s.close)
		err = conn.Close(CloseNormal, "")
	})
	return err
}

// dropConnection cuts the current connection without a closing handshake, as a network
// failure would (tests use it to check resumption).
func (s *TelemetryStream) dropConnection() {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	_ = conn.conn.Close()
}

func transportTLS(hc *http.Client) *tls.Config {
	if t, ok := hc.Transport.(*http.Transport); ok && t.TLSClientConfig != nil {
		return t.TLSClientConfig
	}
	return nil
}
