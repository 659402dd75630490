DROP TABLE audit_log;
DROP TABLE jobs;
DROP TABLE web_sessions;
DROP TABLE api_keys;
DROP TABLE tenants;
