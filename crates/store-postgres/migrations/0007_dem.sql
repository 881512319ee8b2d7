-- DEM datasets as rows. The files stay in the blob store under <account>/dem/datasets/<id>/.
CREATE TABLE dem_datasets (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    filename TEXT,
    size BIGINT NOT NULL,
    -- What the raster engine found (width, height, bands, CRS, bounds, zooms), as JSON.
    info TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, id)
);
CREATE INDEX dem_datasets_newest ON dem_datasets (account_id, created_at DESC, id DESC);
