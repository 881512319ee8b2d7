-- Seats shared between nodes (node_seats) exist on PostgreSQL only: one process holds a SQLite
-- store, and it counts its seats in memory.
SELECT 1;
