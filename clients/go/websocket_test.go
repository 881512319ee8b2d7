package meridian

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A scripted WebSocket server: it checks the handshake, then runs script on the connection.
type wsPeer struct {
	t    *testing.T
	conn net.Conn
	br   *bufio.Reader
}

func (p *wsPeer) send(fin bool, opcode byte, payload []byte) {
	b0 := opcode
	if fin {
		b0 |= 0x80
	}
	hdr := []byte{b0}
	switch n := len(payload); {
	case n <= 125:
		hdr = append(hdr, byte(n))
	case n <= 0xFFFF:
		hdr = append(hdr, 126, byte(n>>8), byte(n))
	default:
		var l [8]byte
		binary.BigEndian.PutUint64(l[:], uint64(n))
		hdr = append(append(hdr, 127), l[:]...)
	}
	if _, err := p.conn.Write(append(hdr, payload...)); err != nil {
		p.t.Errorf("server write: %v", err)
	}
}

// recv reads one client frame, checking that it is masked.
func (p *wsPeer) recv() (byte, []byte) {
	var h [2]byte
	if _, err := io.ReadFull(p.br, h[:]); err != nil {
		p.t.Errorf("server read: %v", err)
		return 0, nil
	}
	if h[1]&0x80 == 0 {
		p.t.Errorf("client frame not masked")
	}
	n := uint64(h[1] & 0x7F)
	switch n {
	case 126:
		var b [2]byte
		_, _ = io.ReadFull(p.br, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		_, _ = io.ReadFull(p.br, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	var mask [4]byte
	_, _ = io.ReadFull(p.br, mask[:])
	data := make([]byte, n)
	_, _ = io.ReadFull(p.br, data)
	for i := range data {
		data[i] ^= mask[i%4]
	}
	return h[0] & 0x0F, data
}

func closePayload(code int, reason string) []byte {
	b := make([]byte, 2+len(reason))
	binary.BigEndian.PutUint16(b, uint16(code))
	copy(b[2:], reason)
	return b
}

func wsServer(t *testing.T, badAccept bool, script func(p *wsPeer)) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer mrd_ws" {
			writeProblem(w, 401, "unauthenticated", nil)
			return
		}
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") || r.Header.Get("Sec-WebSocket-Version") != "13" {
			writeProblem(w, 426, "upgrade_required", nil)
			return
		}
		key := r.Header.Get("Sec-WebSocket-Key")
		accept := wsAcceptKey(key)
		if badAccept {
			accept = wsAcceptKey(key + "x")
		}
		conn, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n")
		_ = brw.Flush()
		script(&wsPeer{t: t, conn: conn, br: brw.Reader})
	}))
}

func dialTest(t *testing.T, srv *httptest.Server, maxMessage int64) (*wsConn, error) {
	u, _ := url.Parse(strings.Replace(srv.URL, "http://", "ws://", 1) + "/api/v1/realtime/twin/twin_1?since=x")
	h := http.Header{}
	h.Set("Authorization", "Bearer mrd_ws")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return dialWebSocket(ctx, u, h, nil, maxMessage)
}

func TestWebSocketFrames(t *testing.T) {
	done := make(chan struct{})
	srv := wsServer(t, false, func(p *wsPeer) {
		defer close(done)
		// A ping is answered with the same payload.
		p.send(true, wsPing, []byte("are you there"))
		if op, data := p.recv(); op != wsPong || string(data) != "are you there" {
			t.Errorf("pong %d %q", op, data)
		}
		// A text message in three fragments with a ping between them.
		p.send(false, wsText, []byte("hel"))
		p.send(true, wsPing, nil)
		p.send(false, wsContinuation, []byte("lo, "))
		p.send(true, wsContinuation, []byte("wörld"))
		if op, _ := p.recv(); op != wsPong {
			t.Errorf("second pong: %d", op)
		}
		// A long message (16-bit length) and a binary one (64-bit length).
		p.send(true, wsText, []byte(strings.Repeat("a", 300)))
		p.send(true, wsBinary, make([]byte, 70000))
		// What the client sends.
		if op, data := p.recv(); op != wsText || string(data) != `{"type":"subscribe"}` {
			t.Errorf("client text %d %q", op, data)
		}
		// The server closes; the client echoes.
		p.send(true, wsClose, closePayload(1000, "twin deleted"))
		if op, data := p.recv(); op != wsClose || binary.BigEndian.Uint16(data) != 1000 {
			t.Errorf("close echo %d %v", op, data)
		}
	})
	defer srv.Close()
	c, err := dialTest(t, srv, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	op, data, err := c.ReadMessage()
	if err != nil || op != wsText || string(data) != "hello, wörld" {
		t.Fatalf("fragmented: %d %q %v", op, data, err)
	}
	if op, data, err = c.ReadMessage(); err != nil || len(data) != 300 {
		t.Fatalf("300 bytes: %d %d %v", op, len(data), err)
	}
	if op, data, err = c.ReadMessage(); err != nil || op != wsBinary || len(data) != 70000 {
		t.Fatalf("binary: %d %d %v", op, len(data), err)
	}
	if err := c.WriteText(`{"type":"subscribe"}`); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.ReadMessage()
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Code != 1000 || ce.Reason != "twin deleted" {
		t.Fatalf("close: %v", err)
	}
	<-done
}

func TestWebSocketLimitsAndErrors(t *testing.T) {
	// A message over the limit is refused with 1009, even across fragments.
	done := make(chan struct{})
	srv := wsServer(t, false, func(p *wsPeer) {
		defer close(done)
		p.send(false, wsText, []byte(strings.Repeat("x", 60)))
		p.send(true, wsContinuation, []byte(strings.Repeat("x", 60)))
		if op, data := p.recv(); op != wsClose || binary.BigEndian.Uint16(data) != CloseMessageTooBig {
			t.Errorf("expected close 1009, got %d %v", op, data)
		}
	})
	defer srv.Close()
	c, err := dialTest(t, srv, 100)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.ReadMessage()
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Code != CloseMessageTooBig {
		t.Fatalf("oversize: %v", err)
	}
	<-done

	// Protocol errors: a masked server frame, invalid UTF-8 text.
	for name, tc := range map[string]struct {
		frame []byte
		code  int
	}{
		"masked":    {[]byte{0x81, 0x81, 1, 2, 3, 4, 'a'}, CloseProtocolError},
		"utf8":      {[]byte{0x81, 0x02, 0xC3, 0x28}, CloseInvalidPayload},
		"long ping": {append([]byte{0x89, 126, 0, 200}, make([]byte, 200)...), CloseProtocolError},
		"opcode":    {[]byte{0x83, 0x00}, CloseProtocolError},
	} {
		t.Run(name, func(t *testing.T) {
			done := make(chan struct{})
			srv := wsServer(t, false, func(p *wsPeer) {
				defer close(done)
				_, _ = p.conn.Write(tc.frame)
				if op, data := p.recv(); op != wsClose || int(binary.BigEndian.Uint16(data)) != tc.code {
					t.Errorf("expected close %d, got %d %v", tc.code, op, data)
				}
			})
			defer srv.Close()
			c, err := dialTest(t, srv, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = c.ReadMessage()
			var ce *CloseError
			if !errors.As(err, &ce) || ce.Code != tc.code {
				t.Fatalf("got %v, want close %d", err, tc.code)
			}
			<-done
		})
	}

	// A wrong Sec-WebSocket-Accept fails the handshake.
	bad := wsServer(t, true, func(p *wsPeer) {})
	defer bad.Close()
	if _, err := dialTest(t, bad, 0); err == nil || !strings.Contains(err.Error(), "Sec-WebSocket-Accept") {
		t.Fatalf("bad accept: %v", err)
	}

	// A refused upgrade is a problem.
	u, _ := url.Parse(strings.Replace(bad.URL, "http://", "ws://", 1) + "/")
	_, err = dialWebSocket(context.Background(), u, http.Header{}, nil, 0)
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Status != 401 || pe.Code != "unauthenticated" {
		t.Fatalf("refused upgrade: %v", err)
	}
}

func TestWebSocketClientClose(t *testing.T) {
	done := make(chan struct{})
	srv := wsServer(t, false, func(p *wsPeer) {
		defer close(done)
		op, data := p.recv()
		if op != wsClose || binary.BigEndian.Uint16(data) != 1000 || string(data[2:]) != "bye" {
			t.Errorf("client close %d %q", op, data)
		}
		p.send(true, wsClose, data[:2])
	})
	defer srv.Close()
	c, err := dialTest(t, srv, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(CloseNormal, "bye"); err != nil {
		t.Fatal(err)
	}
	<-done
	if err := c.WriteText("late"); err == nil {
		t.Fatal("write after close accepted")
	}
}
