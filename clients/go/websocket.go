package meridian

// A minimal WebSocket client (RFC 6455): the opening handshake over a net.Conn with the
// Sec-WebSocket-Key / Sec-WebSocket-Accept check, masked client frames, text, binary,
// continuation, close, ping and pong frames, fragmented messages and a size limit. No
// extensions (no compression) and no subprotocols are negotiated.

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// WebSocket opcodes.
const (
	wsContinuation = 0x0
	wsText         = 0x1
	wsBinary       = 0x2
	wsClose        = 0x8
	wsPing         = 0x9
	wsPong         = 0xA
)

// WebSocket close codes used here.
const (
	CloseNormal          = 1000
	CloseGoingAway       = 1001
	CloseProtocolError   = 1002
	CloseUnsupportedData = 1003
	CloseNoStatus        = 1005
	CloseAbnormal        = 1006
	CloseInvalidPayload  = 1007
	ClosePolicyViolation = 1008
	CloseMessageTooBig   = 1009
	CloseInternalError   = 1011
)

const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// CloseError is the end of a WebSocket connection with its close code and reason.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("meridian: websocket closed (%d): %s", e.Code, e.Reason)
	}
	return fmt.Sprintf("meridian: websocket closed (%d)", e.Code)
}

// wsConn is one client connection.
type wsConn struct {
	conn       net.Conn
	br         *bufio.Reader
	maxMessage int64

	wmu       sync.Mutex
	closeSent bool

	rmu        sync.Mutex
	closed     *CloseError
	readBroken error
}

// wsAcceptKey is the Sec-WebSocket-Accept value of a key.
func wsAcceptKey(key string) string {
	h := sha1.New()
	h.Write([]byte(key + wsGUID))
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// dialWebSocket opens a connection to a ws:// or wss:// URL with the given headers. A refused
// upgrade is returned as a *ProblemError with the server's answer.
func dialWebSocket(ctx context.Context, u *url.URL, header http.Header, tlsConfig *tls.Config, maxMessage int64) (*wsConn, error) {
	var secure bool
	switch u.Scheme {
	case "ws", "http":
	case "wss", "https":
		secure = true
	default:
		return nil, fmt.Errorf("meridian: websocket URL scheme %q", u.Scheme)
	}
	host := u.Host
	if u.Port() == "" {
		if secure {
			host = net.JoinHostPort(u.Hostname(), "443")
		} else {
			host = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, err
	}
	if secure {
		cfg := &tls.Config{}
		if tlsConfig != nil {
			cfg = tlsConfig.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = u.Hostname()
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		conn = tc
	}
	// The handshake must finish within the context's deadline.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-ctx.Done():
			_ = conn.SetDeadline(time.Now())
		case <-stop:
		}
	}()

	var keyBytes [16]byte
	if _, err := rand.Read(keyBytes[:]); err != nil {
		conn.Close()
		return nil, err
	}
	key := base64.StdEncoding.EncodeToString(keyBytes[:])
	hu := *u
	if secure {
		hu.Scheme = "https"
	} else {
		hu.Scheme = "http"
	}
	req, err := http.NewRequest(http.MethodGet, hu.String(), nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Key", key)
	req.Header.Set("Sec-WebSocket-Version", "13")
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(conn, 16<<10)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("meridian: websocket handshake: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer conn.Close()
		resp.Body = io.NopCloser(io.LimitReader(resp.Body, 64<<10))
		return nil, problemFromResponse(http.MethodGet, resp)
	}
	if !strings.EqualFold(resp.Header.Get("Upgrade"), "websocket") || !headerHasToken(resp.Header, "Connection", "upgrade") {
		conn.Close()
		return nil, errors.New("meridian: websocket handshake: the answer does not upgrade to websocket")
	}
	if resp.Header.Get("Sec-WebSocket-Accept") != wsAcceptKey(key) {
		conn.Close()
		return nil, errors.New("meridian: websocket handshake: wrong Sec-WebSocket-Accept")
	}
	if ext := resp.Header.Get("Sec-WebSocket-Extensions"); ext != "" {
		conn.Close()
		return nil, fmt.Errorf("meridian: websocket handshake: extensions %q were not asked for", ext)
	}
	_ = conn.SetDeadline(time.Time{})
	if maxMessage <= 0 {
		maxMessage = 16 << 20
	}
	return &wsConn{conn: conn, br: br, maxMessage: maxMessage}, nil
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// writeFrame sends one masked frame.
func (c *wsConn) writeFrame(opcode byte, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closeSent {
		return errors.New("meridian: websocket: write after close")
	}
	if opcode == wsClose {
		c.closeSent = true
	}
	var hdr [14]byte
	hdr[0] = 0x80 | opcode
	n := len(payload)
	i := 2
	switch {
	case n <= 125:
		hdr[1] = 0x80 | byte(n)
	case n <= 0xFFFF:
		hdr[1] = 0x80 | 126
		binary.BigEndian.PutUint16(hdr[2:], uint16(n))
		i = 4
	default:
		hdr[1] = 0x80 | 127
		binary.BigEndian.PutUint64(hdr[2:], uint64(n))
		i = 10
	}
	var mask [4]byte
	if _, err := rand.Read(mask[:]); err != nil {
		return err
	}
	copy(hdr[i:], mask[:])
	i += 4
	buf := make([]byte, i+n)
	copy(buf, hdr[:i])
	for j := 0; j < n; j++ {
		buf[i+j] = payload[j] ^ mask[j%4]
	}
	_ = c.conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
	_, err := c.conn.Write(buf)
	return err
}

// WriteText sends a text message.
func (c *wsConn) WriteText(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("meridian: websocket: text is not UTF-8")
	}
	return c.writeFrame(wsText, []byte(s))
}

// readFrame reads one frame's header and payload.
func (c *wsConn) readFrame() (fin bool, opcode byte, payload []byte, err error) {
	var h [2]byte
	if _, err = io.ReadFull(c.br, h[:]); err != nil {
		return
	}
	fin = h[0]&0x80 != 0
	if h[0]&0x70 != 0 {
		return false, 0, nil, c.fail(CloseProtocolError, "reserved bits set without an extension")
	}
	opcode = h[0] & 0x0F
	if h[1]&0x80 != 0 {
		return false, 0, nil, c.fail(CloseProtocolError, "the server masked a frame")
	}
	length := uint64(h[1] & 0x7F)
	switch length {
	case 126:
		var b [2]byte
		if _, err = io.ReadFull(c.br, b[:]); err != nil {
			return
		}
		length = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err = io.ReadFull(c.br, b[:]); err != nil {
			return
		}
		length = binary.BigEndian.Uint64(b[:])
		if length>>63 != 0 {
			return false, 0, nil, c.fail(CloseProtocolError, "frame length with the top bit set")
		}
	}
	if opcode >= 0x8 {
		if !fin || length > 125 {
			return false, 0, nil, c.fail(CloseProtocolError, "fragmented or long control frame")
		}
	} else if opcode > wsBinary {
		return false, 0, nil, c.fail(CloseProtocolError, fmt.Sprintf("unknown opcode %d", opcode))
	}
	if length > uint64(c.maxMessage) {
		return false, 0, nil, c.fail(CloseMessageTooBig, "message larger than the limit")
	}
	payload = make([]byte, length)
	_, err = io.ReadFull(c.br, payload)
	return
}

// fail sends a close frame for a protocol error and reports it.
func (c *wsConn) fail(code int, reason string) error {
	_ = c.sendClose(code, reason)
	_ = c.conn.Close()
	return &CloseError{Code: code, Reason: reason}
}

func (c *wsConn) sendClose(code int, reason string) error {
	var p []byte
	if code != CloseNoStatus {
		p = make([]byte, 2+len(reason))
		binary.BigEndian.PutUint16(p, uint16(code))
		copy(p[2:], reason)
	}
	return c.writeFrame(wsClose, p)
}

// ReadMessage returns the next text or binary message, answering pings and assembling
// fragments. A close from the server is returned as a *CloseError after it is answered.
func (c *wsConn) ReadMessage() (opcode byte, data []byte, err error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.closed != nil {
		return 0, nil, c.closed
	}
	if c.readBroken != nil {
		return 0, nil, c.readBroken
	}
	var msg []byte
	var msgOp byte
	inMessage := false
	for {
		fin, op, payload, err := c.readFrame()
		if err != nil {
			var ce *CloseError
			if errors.As(err, &ce) {
				c.closed = ce
			} else {
				c.readBroken = err
			}
			return 0, nil, err
		}
		switch op {
		case wsPing:
			if err := c.writeFrame(wsPong, payload); err != nil {
				c.readBroken = err
				return 0, nil, err
			}
			continue
		case wsPong:
			continue
		case wsClose:
			ce := &CloseError{Code: CloseNoStatus}
			if len(payload) == 1 {
				return 0, nil, c.fail(CloseProtocolError, "close frame of one byte")
			}
			if len(payload) >= 2 {
				ce.Code = int(binary.BigEndian.Uint16(payload))
				if !utf8.Valid(payload[2:]) {
					return 0, nil, c.fail(CloseProtocolError, "close reason is not UTF-8")
				}
				ce.Reason = string(payload[2:])
			}
			// Echo the close (unless we started it) and end the connection.
			c.wmu.Lock()
			sent := c.closeSent
			c.wmu.Unlock()
			if !sent {
				code := ce.Code
				if code == CloseNoStatus {
					code = CloseNormal
				}
				_ = c.sendClose(code, "")
			}
			_ = c.conn.Close()
			c.closed = ce
			return 0, nil, ce
		case wsContinuation:
			if !inMessage {
				return 0, nil, c.fail(CloseProtocolError, "continuation without a message")
			}
		default: // text, binary
			if inMessage {
				return 0, nil, c.fail(CloseProtocolError, "new message inside a fragmented one")
			}
			inMessage = true
			msgOp = op
		}
		if int64(len(msg))+int64(len(payload)) > c.maxMessage {
			return 0, nil, c.fail(CloseMessageTooBig, "message larger than the limit")
		}
		msg = append(msg, payload...)
		if fin {
			if msgOp == wsText && !utf8.Valid(msg) {
				return 0, nil, c.fail(CloseInvalidPayload, "text message is not UTF-8")
			}
			return msgOp, msg, nil
		}
	}
}

// Close starts the closing handshake, waits briefly for the server's close and ends the
// connection.
func (c *wsConn) Close(code int, reason string) error {
	err := c.sendClose(code, reason)
	if err == nil {
		// Wait (briefly) for the server's close frame; other frames are dropped.
		_ = c.conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		if c.rmu.TryLock() {
			for c.closed == nil && c.readBroken == nil {
				_, op, _, rerr := c.readFrame()
				if rerr != nil || op == wsClose {
					break
				}
			}
			c.rmu.Unlock()
		}
	}
	cerr := c.conn.Close()
	if err != nil && !strings.Contains(err.Error(), "write after close") {
		return err
	}
	return cerr
}
