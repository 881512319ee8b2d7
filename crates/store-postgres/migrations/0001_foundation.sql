-- Accounts (tenants), their API keys, server settings, the durable job queue and the event outbox.
-- Times are milliseconds since the Unix epoch, UTC (as in the SQLite schema, so that both backends
-- read rows the same way).

CREATE TABLE accounts (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    email       TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));

CREATE TABLE api_keys (
    seq           BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    prefix        TEXT NOT NULL,
    hash          TEXT NOT NULL UNIQUE,
    scopes        TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT,
    revoked_at    BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id, seq);

CREATE TABLE settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);

-- `seq` is the insertion order lists are newest-first by (ids sort by time to the millisecond only).
CREATE TABLE jobs (
    seq               BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind              TEXT NOT NULL,
    status            TEXT NOT NULL,
    params            TEXT NOT NULL,
    progress          BIGINT NOT NULL DEFAULT 0,
    attempts          BIGINT NOT NULL DEFAULT 0,
    max_attempts      BIGINT NOT NULL,
    run_at            BIGINT NOT NULL,
    lease_owner       TEXT,
    lease_expires_at  BIGINT,
    cancel_requested  BIGINT NOT NULL DEFAULT 0,
    output            TEXT,
    error             TEXT,
    created_at        BIGINT NOT NULL,
    started_at        BIGINT,
    finished_at       BIGINT,
    updated_at        BIGINT NOT NULL
);
-- Claims look for due queued jobs and running jobs whose lease ran out.
CREATE INDEX jobs_due ON jobs (run_at, id) WHERE status = 'queued';
CREATE INDEX jobs_leased ON jobs (lease_expires_at) WHERE status = 'running';
CREATE INDEX jobs_account ON jobs (account_id, seq);
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;

-- `seq` is given under the outbox lock, held to the commit: its order is the commit order.
CREATE TABLE outbox (
    seq            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    account_id     TEXT NOT NULL,
    event_type     TEXT NOT NULL,
    payload        TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    dispatched_at  BIGINT
);
CREATE INDEX outbox_pending ON outbox (seq) WHERE dispatched_at IS NULL;
CREATE INDEX outbox_account ON outbox (account_id, seq);
