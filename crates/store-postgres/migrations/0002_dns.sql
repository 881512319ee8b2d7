-- DNS: zones, their records and DNSSEC keys. Names are lowercase ASCII (IDN as punycode), fully
-- qualified, without the trailing dot. Times are milliseconds since the Unix epoch, UTC.

CREATE TABLE dns_zones (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name          TEXT NOT NULL UNIQUE,
    status        TEXT NOT NULL,
    soa_serial    BIGINT NOT NULL,
    record_count  BIGINT NOT NULL DEFAULT 0,
    dnssec        BIGINT NOT NULL DEFAULT 0,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX dns_zones_account ON dns_zones (account_id, name);

CREATE TABLE dns_records (
    id          TEXT PRIMARY KEY,
    zone_id     TEXT NOT NULL REFERENCES dns_zones (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    type        TEXT NOT NULL,
    content     TEXT NOT NULL,
    -- The whole record data in master-file form: what makes two records duplicates.
    rdata       TEXT NOT NULL,
    ttl         BIGINT NOT NULL,
    priority    BIGINT,
    weight      BIGINT,
    port        BIGINT,
    flags       BIGINT,
    tag         TEXT,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE UNIQUE INDEX dns_records_unique ON dns_records (zone_id, name, type, rdata);
CREATE INDEX dns_records_zone ON dns_records (zone_id, name, type);

CREATE TABLE dns_keys (
    id           TEXT PRIMARY KEY,
    zone_id      TEXT NOT NULL REFERENCES dns_zones (id) ON DELETE CASCADE,
    algorithm    BIGINT NOT NULL,
    flags        BIGINT NOT NULL,
    -- The private key (hex); the public key and DNSKEY are derived from it.
    private_key  TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);
CREATE INDEX dns_keys_zone ON dns_keys (zone_id);
