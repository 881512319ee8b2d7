-- Digital twins: one row per twin (its definition in `body`, its simulation clock in `clock`),
-- its sensors, their readings (a time series keyed by twin, sensor and instant), and the
-- tileset builds kept for it (their files are blobs under <account>/twin/<id>/builds/<stamp>/).
CREATE TABLE twins (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    status TEXT NOT NULL,
    body TEXT NOT NULL,
    clock TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE UNIQUE INDEX twins_id ON twins (id);
CREATE INDEX twins_newest ON twins (account_id, created_at DESC, id DESC);

CREATE TABLE twin_sensors (
    twin_id TEXT NOT NULL,
    id TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    feature_id TEXT,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (twin_id, id)
);
CREATE INDEX twin_sensors_feature ON twin_sensors (twin_id, feature_id);

-- `ts` in milliseconds since the epoch; `value` as JSON text. A second reading of a sensor at the
-- same instant replaces the first (ingest retries are idempotent).
CREATE TABLE twin_readings (
    twin_id TEXT NOT NULL,
    sensor_id TEXT NOT NULL,
    ts INTEGER NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (twin_id, sensor_id, ts)
) WITHOUT ROWID;
CREATE INDEX twin_readings_time ON twin_readings (twin_id, ts);

-- `stamp`: how many versions of the source collection's features existed at the build's
-- instant; equal stamps mean the same parcels, so a build is found again by its stamp.
CREATE TABLE twin_builds (
    twin_id TEXT NOT NULL,
    stamp INTEGER NOT NULL,
    summary TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    used_at INTEGER NOT NULL,
    PRIMARY KEY (twin_id, stamp)
);
