package meridian

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Errors of webhook verification (wrapped: test them with errors.Is).
var (
	// ErrWebhookUnsigned: the request has neither X-Service-Signature nor webhook-signature.
	ErrWebhookUnsigned = errors.New("meridian: webhook: no signature header")
	// ErrWebhookSignature: no signature matches the body and the secret.
	ErrWebhookSignature = errors.New("meridian: webhook: signature mismatch")
	// ErrWebhookTimestamp: the timestamp is missing, malformed or outside the tolerance.
	ErrWebhookTimestamp = errors.New("meridian: webhook: timestamp outside the tolerance")
)

// DefaultWebhookTolerance is how far a delivery's timestamp may be from now.
const DefaultWebhookTolerance = 5 * time.Minute

// WebhookVerifier checks that a delivery comes from Meridian. Verify both signature formats
// Meridian sends:
//
//   - X-Service-Signature: "sha256=" + hex HMAC-SHA256 of the raw body keyed with the secret's
//     text ("whsec_..."), comma-separated during a secret rotation; X-Service-Timestamp (RFC 3339)
//     is checked against the tolerance too.
//   - Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature): "v1," + base64
//     HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the bytes the base64 after "whsec_"
//     decodes to, space-separated during a rotation; the timestamp is signed, so an old
//     delivery replayed is refused.
//
// Every format present must verify, and at least one must be present. Comparisons are
// constant-time.
type WebhookVerifier struct {
	// Secret is the subscription's secret ("whsec_...").
	Secret string
	// Tolerance is how far the timestamp may be from Now (DefaultWebhookTolerance when zero).
	Tolerance time.Duration
	// Now gives the current time (time.Now when nil).
	Now func() time.Time
}

// VerifyWebhook checks a delivery's signatures and timestamp with the subscription's secret:
// header is the request's header, body its raw bytes as received (before any JSON parsing),
// tolerance how old (or how far ahead) its timestamp may be (0: DefaultWebhookTolerance).
// It returns nil when the delivery is authentic.
//
//	body, _ := io.ReadAll(r.Body)
//	if err := meridian.VerifyWebhook(secret, r.Header, body, 5*time.Minute); err != nil {
//		http.Error(w, "bad signature", http.StatusUnauthorized)
//		return
//	}
func VerifyWebhook(secret string, header http.Header, body []byte, tolerance time.Duration) error {
	return WebhookVerifier{Secret: secret, Tolerance: tolerance}.Verify(header, body)
}

// Verify checks one delivery.
func (v WebhookVerifier) Verify(header http.Header, body []byte) error {
	now := time.Now()
	if v.Now != nil {
		now = v.Now()
	}
	tol := v.Tolerance
	if tol <= 0 {
		tol = DefaultWebhookTolerance
	}
	service := header.Get("X-Service-Signature")
	standard := header.Get("Webhook-Signature")
	if service == "" && standard == "" {
		return ErrWebhookUnsigned
	}
	if standard != "" {
		if err := v.verifyStandard(header, body, now, tol); err != nil {
			return err
		}
	}
	if service != "" {
		if err := v.verifyService(header, body, now, tol); err != nil {
			return err
		}
	}
	return nil
}

func within(t, now time.Time, tol time.Duration) bool {
	d := now.Sub(t)
	if d < 0 {
		d = -d
	}
	return d <= tol
}

func (v WebhookVerifier) verifyService(header http.Header, body []byte, now time.Time, tol time.Duration) error {
	if ts := header.Get("X-Service-Timestamp"); ts != "" {
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			return fmt.Errorf("%w: X-Service-Timestamp %q", ErrWebhookTimestamp, ts)
		}
		if !within(t, now, tol) {
			return fmt.Errorf("%w: X-Service-Timestamp %s", ErrWebhookTimestamp, ts)
		}
	}
	mac := hmac.New(sha256.New, []byte(v.Secret))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, given := range strings.Split(header.Get("X-Service-Signature"), ",") {
		given = strings.TrimSpace(given)
		if !strings.HasPrefix(given, "sha256=") {
			continue
		}
		sig, err := hex.DecodeString(strings.TrimPrefix(given, "sha256="))
		if err != nil {
			continue
		}
		if hmac.Equal(sig, want) {
			return nil
		}
	}
	return fmt.Errorf("%w (X-Service-Signature)", ErrWebhookSignature)
}

// standardKey is the HMAC key of the Standard Webhooks signature: the secret's base64 part.
func standardKey(secret string) ([]byte, error) {
	s := strings.TrimPrefix(secret, "whsec_")
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if key, err2 := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err2 == nil {
			return key, nil
		}
		return nil, fmt.Errorf("meridian: webhook secret is not whsec_ followed by base64: %w", err)
	}
	return key, nil
}

func (v WebhookVerifier) verifyStandard(header http.Header, body []byte, now time.Time, tol time.Duration) error {
	id := header.Get("Webhook-Id")
	ts := header.Get("Webhook-Timestamp")
	if id == "" || ts == "" {
		return fmt.Errorf("%w: webhook-id or webhook-timestamp missing", ErrWebhookSignature)
	}
	secs, err := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
	if err != nil {
		return fmt.Errorf("%w: webhook-timestamp %q", ErrWebhookTimestamp, ts)
	}
	if !within(time.Unix(secs, 0), now, tol) {
		return fmt.Errorf("%w: webhook-timestamp %s", ErrWebhookTimestamp, ts)
	}
	key, err := standardKey(v.Secret)
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, given := range strings.Fields(header.Get("Webhook-Signature")) {
		version, sig, ok := strings.Cut(given, ",")
		if !ok || version != "v1" {
			continue
		}
		if subtle.ConstantTimeCompare([]byte(sig), []byte(want)) == 1 {
			return nil
		}
	}
	return fmt.Errorf("%w (webhook-signature)", ErrWebhookSignature)
}

// SignWebhook makes the headers Meridian would send with body (both formats), for testing a
// receiver: id is the event id, at the delivery time.
func SignWebhook(secret, id string, at time.Time, body []byte) (http.Header, error) {
	key, err := standardKey(secret)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	h.Set("X-Service-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	h.Set("X-Service-Event-Id", id)
	h.Set("X-Service-Timestamp", at.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	ts := strconv.FormatInt(at.Unix(), 10)
	mac = hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	h.Set("Webhook-Id", id)
	h.Set("Webhook-Timestamp", ts)
	h.Set("Webhook-Signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	return h, nil
}
