-- Token-quota counters when no Redis is configured: every process using these tables shares
-- them, and each change is one atomic upsert (a window that expired starts again at the amount).
CREATE TABLE counters (
    name TEXT PRIMARY KEY,
    value BIGINT NOT NULL,
    expires_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX counters_expiry ON counters(expires_at);
