-- Digital twins: one row per twin (its definition in `body`, its simulation clock in `clock`),
-- its sensors, their readings (a time series keyed by twin, sensor and instant), and the
-- tileset builds kept for it (their files are blobs under <account>/twin/<id>/builds/<stamp>/).
--
-- Ids sort byte by byte (COLLATE "C"), as the SQLite backend sorts them.
CREATE TABLE twins (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id TEXT COLLATE "C" NOT NULL,
    status TEXT NOT NULL,
    body TEXT NOT NULL,
    clock TEXT NOT NULL,
    version BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, id)
);
-- Ids are unique across accounts: ingest names the twin alone.
CREATE UNIQUE INDEX twins_id ON twins (id);
CREATE INDEX twins_newest ON twins (account_id, created_at DESC, id DESC);

CREATE TABLE twin_sensors (
    twin_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    feature_id TEXT,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (twin_id, id)
);
CREATE INDEX twin_sensors_feature ON twin_sensors (twin_id, feature_id);

-- `ts` in milliseconds since the epoch; `value` as JSON text. A second reading of a sensor at the
-- same instant replaces the first (ingest retries are idempotent).
CREATE TABLE twin_readings (
    twin_id TEXT COLLATE "C" NOT NULL,
    sensor_id TEXT COLLATE "C" NOT NULL,
    ts BIGINT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (twin_id, sensor_id, ts)
);
-- A twin's readings in time order, then sensor (streams resuming, replays, purges).
CREATE INDEX twin_readings_time ON twin_readings (twin_id, ts, sensor_id);

-- `stamp`: how many versions of the source collection's features existed at the build's
-- instant; equal stamps mean the same parcels, so a build is found again by its stamp.
CREATE TABLE twin_builds (
    twin_id TEXT COLLATE "C" NOT NULL,
    stamp BIGINT NOT NULL,
    summary TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    used_at BIGINT NOT NULL,
    PRIMARY KEY (twin_id, stamp)
);
