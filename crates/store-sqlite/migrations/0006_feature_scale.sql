-- (lot, plan) identity is a rule of the cadastre's parcels only: other collections may repeat them.
DROP INDEX features_lot_plan;
CREATE UNIQUE INDEX features_lot_plan ON features (account_id, lot, plan)
    WHERE collection = 'parcels' AND retired_at IS NULL AND lot IS NOT NULL AND plan IS NOT NULL;

-- The number of live features per collection, kept by every insert and retirement, so that a page
-- never counts the collection again.
ALTER TABLE feature_collections ADD COLUMN feature_count INTEGER NOT NULL DEFAULT 0;
UPDATE feature_collections SET feature_count = (
    SELECT count(*) FROM features f
    WHERE f.account_id = feature_collections.account_id AND f.collection = feature_collections.id
      AND f.retired_at IS NULL
);

-- Property values of live features, one row per top-level property (strings and arrays/objects as
-- text, numbers as num, booleans as flag), so that equality and
-- range filters on any queryable use an index instead of reading every feature.
CREATE TABLE feature_values (
    seq          INTEGER NOT NULL,
    account_id   TEXT NOT NULL,
    collection   TEXT NOT NULL,
    key          TEXT NOT NULL,
    text         TEXT,
    num          REAL,
    flag         INTEGER
);
CREATE INDEX feature_values_text ON feature_values (account_id, collection, key, text, seq);
CREATE INDEX feature_values_num ON feature_values (account_id, collection, key, num, seq);
CREATE INDEX feature_values_flag ON feature_values (account_id, collection, key, flag, seq) WHERE flag IS NOT NULL;
CREATE INDEX feature_values_seq ON feature_values (seq);
INSERT INTO feature_values (seq, account_id, collection, key, text, num, flag)
    SELECT f.seq, f.account_id, f.collection, j.key,
           CASE WHEN j.type = 'text' THEN j.atom WHEN j.type IN ('array', 'object') THEN j.value END,
           CASE WHEN j.type IN ('integer', 'real') THEN j.atom END,
           CASE WHEN j.type = 'true' THEN 1 WHEN j.type = 'false' THEN 0 END
    FROM features f, json_each(f.properties) j
    WHERE f.retired_at IS NULL AND j.type <> 'null';
