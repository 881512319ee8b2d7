package meridian

// The real server for the tests: TestMain starts two `meridian serve` processes on free ports
// (one with a tiny DNS rate limit for the 429 test) and stops them at the end.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type testServer struct {
	cmd    *exec.Cmd
	dir    string
	base   string // http://127.0.0.1:PORT
	dns    string // 127.0.0.1:PORT
	stderr *capBuffer
	done   chan struct{}
}

// capBuffer keeps the last bytes written to it.
type capBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 64<<10 {
		b.buf = b.buf[len(b.buf)-64<<10:]
	}
	return len(p), nil
}

func (b *capBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

var (
	mainServer    *testServer // webhooks may call plain-HTTP private addresses
	limitedServer *testServer // the DNS area allows one request a second; tokens last 3 s
)

// repoRoot is the repository root, found from this file's location (clients/go/).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// serverBinary returns $MERIDIAN_BIN, or target/debug/meridian of the repository, building
// it with cargo when it is not there.
func serverBinary() (string, error) {
	if b := os.Getenv("MERIDIAN_BIN"); b != "" {
		return b, nil
	}
	root := repoRoot()
	bin := filepath.Join(root, "target", "debug", "meridian")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if _, err := os.Stat(filepath.Join(root, "Cargo.toml")); err != nil {
		return "", fmt.Errorf("%s is not the Meridian repository and MERIDIAN_BIN is not set", root)
	}
	fmt.Fprintln(os.Stderr, "meridian binary not found; running cargo build -p meridian --bin meridian")
	cmd := exec.Command("cargo", "build", "-p", "meridian", "--bin", "meridian")
	cmd.Dir = root
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("cargo build: %w", err)
	}
	return bin, nil
}

func startServer(bin string, env ...string) (*testServer, error) {
	dir, err := os.MkdirTemp("", "meridian-go-test-")
	if err != nil {
		return nil, err
	}
	s := &testServer{dir: dir, stderr: &capBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, "--data-dir", filepath.Join(dir, "data"), "serve", "--http", "127.0.0.1:0", "--dns", "127.0.0.1:0")
	// MERIDIAN_BIN names the binary for the tests; the server reads every other MERIDIAN_*
	// variable as configuration and refuses keys it does not know.
	var inherited []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MERIDIAN_BIN=") {
			inherited = append(inherited, kv)
		}
	}
	s.cmd.Env = append(append(inherited, "MERIDIAN_LOG__LEVEL=warn"), env...)
	s.cmd.Stderr = s.stderr
	dieWithParent(s.cmd)
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// The process is started and waited for on one locked thread: the parent-death signal is
	// tied to the thread that started the child, which must live as long as the child.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		err := s.cmd.Start()
		started <- err
		if err == nil {
			_ = s.cmd.Wait()
		}
		close(s.done)
	}()
	if err := <-started; err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	found := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "listening on http ") {
				s.base = "http://" + strings.TrimSpace(strings.TrimPrefix(line, "listening on http "))
			}
			if strings.HasPrefix(line, "listening on dns ") {
				s.dns = strings.TrimSpace(strings.TrimPrefix(line, "listening on dns "))
			}
			if !sent && s.base != "" && s.dns != "" {
				sent = true
				found <- nil
			}
		}
		// Keep draining until the process ends (the scanner stops at EOF).
		_, _ = io.Copy(io.Discard, out)
		if !sent {
			found <- fmt.Errorf("the server ended before listening: %s", s.stderr.String())
		}
	}()
	select {
	case err := <-found:
		if err != nil {
			s.stop()
			return nil, err
		}
	case <-time.After(90 * time.Second):
		s.stop()
		return nil, fmt.Errorf("the server did not print its addresses within 90 s: %s", s.stderr.String())
	}
	return s, nil
}

func (s *testServer) stop() {
	if s == nil {
		return
	}
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	}
	os.RemoveAll(s.dir)
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	bin, err := serverBinary()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot get the meridian binary:", err)
		return 1
	}
	var wg sync.WaitGroup
	var err1, err2 error
	wg.Add(2)
	go func() {
		defer wg.Done()
		mainServer, err1 = startServer(bin,
			"MERIDIAN_WEBHOOKS__ALLOW_HTTP=true",
			"MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS=true",
			"MERIDIAN_JOBS__POLL_INTERVAL=200ms",
			"MERIDIAN_EVENTS__POLL_INTERVAL=200ms",
		)
	}()
	go func() {
		defer wg.Done()
		limitedServer, err2 = startServer(bin,
			"MERIDIAN_RATE_LIMITS__DNS__PER_MINUTE=60",
			"MERIDIAN_RATE_LIMITS__DNS__BURST=1",
			"MERIDIAN_AUTH__ACCESS_TOKEN_TTL=3s",
		)
	}()
	wg.Wait()
	defer mainServer.stop()
	defer limitedServer.stop()
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "cannot start the server:", err1, err2)
		return 1
	}
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "server log (main):\n%s\nserver log (limited):\n%s\n", mainServer.stderr.String(), limitedServer.stderr.String())
	}
	return code
}

func randomSuffix() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// signUp makes a new account on s and returns a client with its key.
func signUp(t *testing.T, ctx context.Context, s *testServer, opts ...Option) (*Client, *CreatedAccount) {
	t.Helper()
	anon, err := New(s.base)
	if err != nil {
		t.Fatal(err)
	}
	created, err := anon.CreateAccount(ctx, CreateAccount{Name: "Ada", Email: "ada-" + randomSuffix() + "@example.com"})
	if err != nil {
		t.Fatalf("sign-up: %v", err)
	}
	c, err := New(s.base, append([]Option{WithAPIKey(created.APIKey)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, created
}

func testdata(parts ...string) string {
	return filepath.Join(append([]string{repoRoot()}, parts...)...)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
