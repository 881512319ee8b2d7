package meridian

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// authorize puts the client's credential on req. It reports whether it was an access token
// the client obtained itself (which may be renewed after a 401).
func (c *Client) authorize(ctx context.Context, req *http.Request) (bool, error) {
	switch {
	case c.useTokens:
		tok, err := c.AccessToken(ctx)
		if err != nil {
			return false, err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		return true, nil
	case c.bearer != "":
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	case c.apiKey != "":
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	return false, nil
}

// AccessToken returns a valid access token for the client's API key, exchanging the key for a
// new one (POST /api/v1/auth/token) when there is none yet or the current one is about to
// expire. It is what URLs need where headers cannot be sent (a tileset for CesiumJS, a
// WebSocket in a browser, a WMS layer in a map client).
func (c *Client) AccessToken(ctx context.Context) (string, error) {
	if c.apiKey == "" {
		return "", errors.New("meridian: an API key is needed to obtain access tokens")
	}
	c.tokMu.Lock()
	defer c.tokMu.Unlock()
	if c.tokenLive && time.Now().Before(c.tokenExp) {
		return c.token, nil
	}
	tok, ttl, err := c.exchangeKey(ctx)
	if err != nil {
		return "", err
	}
	margin := c.refreshMargin
	if q := ttl / 4; margin > q {
		margin = q
	}
	c.token = tok
	c.tokenExp = time.Now().Add(ttl - margin)
	c.tokenLive = true
	return tok, nil
}

// TokenExpiry returns when the client will renew its current access token (zero when it has
// none).
func (c *Client) TokenExpiry() time.Time {
	c.tokMu.Lock()
	defer c.tokMu.Unlock()
	if !c.tokenLive {
		return time.Time{}
	}
	return c.tokenExp
}

func (c *Client) dropToken() {
	c.tokMu.Lock()
	c.tokenLive = false
	c.tokMu.Unlock()
}

// exchangeKey trades the API key for an access token.
func (c *Client) exchangeKey(ctx context.Context) (string, time.Duration, error) {
	r := &apiRequest{method: http.MethodPost, path: "/api/v1/auth/token", noAuth: true}
	r.setHeader("X-Api-Key", c.apiKey)
	resp, err := c.doRaw(ctx, r, nil)
	if err != nil {
		return "", 0, fmt.Errorf("meridian: obtaining an access token: %w", err)
	}
	defer resp.Body.Close()
	var t struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", 0, fmt.Errorf("meridian: obtaining an access token: %w", err)
	}
	if err := json.Unmarshal(data, &t); err != nil || t.AccessToken == "" {
		return "", 0, fmt.Errorf("meridian: obtaining an access token: unexpected answer %q", truncate(string(data), 200))
	}
	ttl := time.Duration(t.ExpiresIn) * time.Second
	if ttl <= 0 {
		ttl = time.Minute
	}
	return t.AccessToken, ttl, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
