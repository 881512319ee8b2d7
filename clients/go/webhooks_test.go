package meridian

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

// The Standard Webhooks specification's example, and the X-Service-Signature of the same body
// computed with Python's hmac module.
const (
	vecSecret   = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vecID       = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vecTS       = "1614265330"
	vecBody     = `{"test": 2432232314}`
	vecStandard = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	vecService  = "sha256=80ec8a89ce3cd22133a1066caecb4d04fea7467657c8514d717ec42c38a5c94c"
)

func vecHeader() http.Header {
	h := http.Header{}
	h.Set("webhook-id", vecID)
	h.Set("webhook-timestamp", vecTS)
	h.Set("webhook-signature", vecStandard)
	h.Set("X-Service-Signature", vecService)
	h.Set("X-Service-Timestamp", "2021-02-25T15:02:10.000Z")
	return h
}

func vecVerifier() WebhookVerifier {
	return WebhookVerifier{Secret: vecSecret, Tolerance: 5 * time.Minute, Now: func() time.Time { return time.Unix(1614265330, 0).Add(time.Minute) }}
}

func TestWebhookKnownVectors(t *testing.T) {
	if err := vecVerifier().Verify(vecHeader(), []byte(vecBody)); err != nil {
		t.Fatal(err)
	}
	h := vecHeader()
	h.Del("X-Service-Signature")
	if err := vecVerifier().Verify(h, []byte(vecBody)); err != nil {
		t.Fatalf("standard alone: %v", err)
	}
	h = vecHeader()
	h.Del("webhook-signature")
	if err := vecVerifier().Verify(h, []byte(vecBody)); err != nil {
		t.Fatalf("service alone: %v", err)
	}
}

func TestWebhookRefusals(t *testing.T) {
	v := vecVerifier()
	cases := []struct {
		name   string
		change func(h http.Header) []byte
		want   error
	}{
		{"tampered body", func(h http.Header) []byte { return []byte(`{"test": 2432232315}`) }, ErrWebhookSignature},
		{"no signature", func(h http.Header) []byte {
			h.Del("webhook-signature")
			h.Del("X-Service-Signature")
			return []byte(vecBody)
		}, ErrWebhookUnsigned},
		{"other timestamp", func(h http.Header) []byte { h.Set("webhook-timestamp", "1614265331"); return []byte(vecBody) }, ErrWebhookSignature},
		{"other id", func(h http.Header) []byte { h.Set("webhook-id", "msg_other"); return []byte(vecBody) }, ErrWebhookSignature},
		{"bad service signature", func(h http.Header) []byte {
			h.Set("X-Service-Signature", "sha256=00"+vecService[9:])
			return []byte(vecBody)
		}, ErrWebhookSignature},
		{"unknown version", func(h http.Header) []byte {
			h.Set("webhook-signature", "v2,"+vecStandard[3:])
			return []byte(vecBody)
		}, ErrWebhookSignature},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := vecHeader()
			body := tc.change(h)
			if err := v.Verify(h, body); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	// Old and future timestamps.
	for _, shift := range []time.Duration{10 * time.Minute, -10 * time.Minute} {
		late := v
		late.Now = func() time.Time { return time.Unix(1614265330, 0).Add(shift) }
		if err := late.Verify(vecHeader(), []byte(vecBody)); !errors.Is(err, ErrWebhookTimestamp) {
			t.Fatalf("shift %v: %v", shift, err)
		}
	}
	// A rotation: several signatures, one of which matches.
	h := vecHeader()
	h.Set("webhook-signature", "v1,AAAA"+vecStandard[7:]+" "+vecStandard)
	h.Set("X-Service-Signature", "sha256=abcd, "+vecService)
	if err := v.Verify(h, []byte(vecBody)); err != nil {
		t.Fatalf("rotation: %v", err)
	}
}

func TestSignWebhookRoundTrip(t *testing.T) {
	at := time.Now()
	body := []byte(`{"id":"evt_1","event":"webhook.test"}`)
	h, err := SignWebhook(vecSecret, "evt_1", at, body)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyWebhook(vecSecret, h, body, 0); err != nil {
		t.Fatal(err)
	}
	if err := VerifyWebhook("whsec_"+vecSecret[7:]+"A", h, body, 0); err == nil {
		t.Fatal("another secret verified")
	}
	h, _ = SignWebhook(vecSecret, "evt_1", at.Add(-time.Hour), body)
	if err := VerifyWebhook(vecSecret, h, body, time.Minute); !errors.Is(err, ErrWebhookTimestamp) {
		t.Fatalf("an hour old: %v", err)
	}
}
