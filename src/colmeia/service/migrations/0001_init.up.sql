-- Tenants, their API keys, web sign-ins, durable jobs and the audit log.
-- Portable SQL: the same file runs on SQLite and PostgreSQL. Times are Unix seconds.
CREATE TABLE tenants (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    name TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    role TEXT NOT NULL DEFAULT 'member',
    rate_limit INTEGER,
    token_quota BIGINT,
    created_at DOUBLE PRECISION NOT NULL,
    last_used_at DOUBLE PRECISION,
    revoked_at DOUBLE PRECISION
);
CREATE INDEX api_keys_tenant ON api_keys(tenant_id);
CREATE TABLE web_sessions (
    token_hash TEXT PRIMARY KEY,
    key_id TEXT NOT NULL REFERENCES api_keys(id),
    created_at DOUBLE PRECISION NOT NULL,
    expires_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    params TEXT NOT NULL,
    progress TEXT NOT NULL DEFAULT '{}',
    result TEXT,
    error TEXT,
    created_by TEXT NOT NULL DEFAULT '',
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    started_at DOUBLE PRECISION,
    finished_at DOUBLE PRECISION,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until DOUBLE PRECISION
);
CREATE INDEX jobs_tenant ON jobs(tenant_id, kind, created_at);
CREATE INDEX jobs_status ON jobs(status, created_at);
CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    ts DOUBLE PRECISION NOT NULL,
    tenant_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL DEFAULT '',
    status INTEGER NOT NULL DEFAULT 0,
    request_id TEXT NOT NULL DEFAULT '',
    detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_tenant ON audit_log(tenant_id, ts);
