-- Webhooks: subscriptions, one delivery per (event, subscription), and every attempt of each.
-- Times are milliseconds since the Unix epoch, UTC. `seq` is the insertion order lists are
-- newest-first by (ids sort by time to the millisecond only).

CREATE TABLE webhook_subscriptions (
    seq                        BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
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
    failing_since              BIGINT,
    secret                     TEXT NOT NULL,
    -- The secret before the last rotation, which keeps signing until previous_secret_expires_at.
    previous_secret            TEXT,
    previous_secret_expires_at BIGINT,
    -- Bumped on every change; the ETag.
    version                    BIGINT NOT NULL DEFAULT 1,
    created_at                 BIGINT NOT NULL,
    updated_at                 BIGINT NOT NULL
);
CREATE INDEX webhook_subscriptions_account ON webhook_subscriptions (account_id, seq);

CREATE TABLE webhook_deliveries (
    seq               BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL,
    subscription_id   TEXT NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
    event_id          TEXT NOT NULL,
    event_type        TEXT NOT NULL,
    -- `pending` (no attempt yet), `failed` (a retry is scheduled), `succeeded`, `exhausted`.
    status            TEXT NOT NULL,
    -- Attempts in all, and since the last redelivery or replay (which picks the retry delay).
    attempt_count     BIGINT NOT NULL DEFAULT 0,
    round_attempts    BIGINT NOT NULL DEFAULT 0,
    next_attempt_at   BIGINT,
    lease_owner       TEXT,
    lease_expires_at  BIGINT,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    -- Set when the round ends (succeeded or exhausted), cleared when a new one starts.
    completed_at      BIGINT,
    -- Fan-out hands an event on at least once; this keeps it to one delivery per subscription
    -- (inserts skip a pair that has one with ON CONFLICT ON CONSTRAINT webhook_deliveries_pair).
    CONSTRAINT webhook_deliveries_pair UNIQUE (event_id, subscription_id)
);
-- Claims look for due deliveries by time, overall and per subscription, and count each
-- subscription's live leases.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'failed');
CREATE INDEX webhook_deliveries_due_per_subscription ON webhook_deliveries (subscription_id, next_attempt_at)
    WHERE status IN ('pending', 'failed');
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (subscription_id, lease_expires_at)
    WHERE status IN ('pending', 'failed');
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, seq);
-- Purges take the deliveries that finished longest ago.
CREATE INDEX webhook_deliveries_completed ON webhook_deliveries (completed_at) WHERE completed_at IS NOT NULL;

CREATE TABLE webhook_attempts (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id    TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at   BIGINT NOT NULL,
    -- The HTTP status, or NULL when no response came (then `error` says why).
    status_code    BIGINT,
    error          TEXT,
    latency_ms     BIGINT NOT NULL,
    -- The first 2 KiB of the response body.
    response_body  TEXT
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);

-- Replays read an account's events by time.
CREATE INDEX outbox_account_time ON outbox (account_id, created_at);
