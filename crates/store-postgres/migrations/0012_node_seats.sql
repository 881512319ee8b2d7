-- Seats (open WebSockets) each node holds per account, so that a cap per account counts every
-- node (meridian_store::seats). Unlogged: the rows describe live processes and mean nothing
-- after a crash of the database, which ends every node's sockets anyway.
CREATE UNLOGGED TABLE node_seats (
    node    TEXT NOT NULL,
    kind    TEXT NOT NULL,
    account TEXT NOT NULL,
    held    BIGINT NOT NULL,
    seen_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (node, kind, account)
);
CREATE INDEX node_seats_by_account ON node_seats (kind, account);
