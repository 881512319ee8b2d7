-- Accounts (tenants), their API keys, server settings, the durable job queue and the event outbox.
-- Times are milliseconds since the Unix epoch, UTC.

CREATE TABLE accounts (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    email       TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));

CREATE TABLE api_keys (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    prefix        TEXT NOT NULL,
    hash          TEXT NOT NULL UNIQUE,
    scopes        TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER,
    revoked_at    INTEGER
);
CREATE INDEX api_keys_account ON api_keys (account_id, id);

CREATE TABLE settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);

CREATE TABLE jobs (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind              TEXT NOT NULL,
    status            TEXT NOT NULL,
    params            TEXT NOT NULL,
    progress          INTEGER NOT NULL DEFAULT 0,
    attempts          INTEGER NOT NULL DEFAULT 0,
    max_attempts      INTEGER NOT NULL,
    run_at            INTEGER NOT NULL,
    lease_owner       TEXT,
    lease_expires_at  INTEGER,
    cancel_requested  INTEGER NOT NULL DEFAULT 0,
    output            TEXT,
    error             TEXT,
    created_at        INTEGER NOT NULL,
    started_at        INTEGER,
    finished_at       INTEGER,
    updated_at        INTEGER NOT NULL
);
CREATE INDEX jobs_claim ON jobs (status, run_at);
CREATE INDEX jobs_account ON jobs (account_id, id);

CREATE TABLE outbox (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT NOT NULL UNIQUE,
    account_id     TEXT NOT NULL,
    event_type     TEXT NOT NULL,
    payload        TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    dispatched_at  INTEGER
);
CREATE INDEX outbox_pending ON outbox (seq) WHERE dispatched_at IS NULL;
CREATE INDEX outbox_account ON outbox (account_id, seq);
