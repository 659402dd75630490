-- Assistant conversations: which tenant owns which thread (the graph's own state lives in the
-- checkpointer under the same id), and the human-in-the-loop requests waiting for an answer.
CREATE TABLE threads (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    created_by TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'idle',
    pending TEXT,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX threads_tenant ON threads(tenant_id, updated_at);
