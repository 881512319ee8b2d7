-- Webhooks: subscriptions, one delivery per (event, subscription), and every attempt of each.
-- Times are milliseconds since the Unix epoch, UTC.

CREATE TABLE webhook_subscriptions (
    id                         TEXT PRIMARY KEY,
    account_id                 TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    url                        TEXT NOT NULL,
    -- JSON array of event types and wildcards (`dns.*`, `*`).
    events                     TEXT NOT NULL,
    description                TEXT,
    -- `active` or `paused`.
    status                     TEXT NOT NULL,
    -- Why it is paused: `user`, or `failing` when paused after failing for webhooks.disable_after.
    paused_reason              TEXT,
    -- Start of the current run of failed attempts; NULL after a success.
    failing_since              INTEGER,
    secret                     TEXT NOT NULL,
    -- The secret before the last rotation, which keeps signing until previous_secret_expires_at.
    previous_secret            TEXT,
    previous_secret_expires_at INTEGER,
    -- Bumped on every change; the ETag.
    version                    INTEGER NOT NULL DEFAULT 1,
    created_at                 INTEGER NOT NULL,
    updated_at                 INTEGER NOT NULL
);
CREATE INDEX webhook_subscriptions_account ON webhook_subscriptions (account_id, status);

CREATE TABLE webhook_deliveries (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL,
    subscription_id   TEXT NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
    event_id          TEXT NOT NULL,
    event_type        TEXT NOT NULL,
    -- `pending` (no attempt yet), `failed` (a retry is scheduled), `succeeded`, `exhausted`.
    status            TEXT NOT NULL,
    -- Attempts in all, and since the last redelivery or replay (which picks the retry delay).
    attempt_count     INTEGER NOT NULL DEFAULT 0,
    round_attempts    INTEGER NOT NULL DEFAULT 0,
    next_attempt_at   INTEGER,
    lease_owner       TEXT,
    lease_expires_at  INTEGER,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    completed_at      INTEGER,
    -- Fan-out hands an event on at least once; this keeps it to one delivery per subscription.
    UNIQUE (event_id, subscription_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'failed');
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, created_at);
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (subscription_id, lease_expires_at)
    WHERE status IN ('pending', 'failed');

CREATE TABLE webhook_attempts (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id    TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at   INTEGER NOT NULL,
    -- The HTTP status, or NULL when no response came (then `error` says why).
    status_code    INTEGER,
    error          TEXT,
    latency_ms     INTEGER NOT NULL,
    -- The first 2 KiB of the response body.
    response_body  TEXT
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);

-- Replays read an account's events by time.
CREATE INDEX outbox_account_time ON outbox (account_id, created_at);
