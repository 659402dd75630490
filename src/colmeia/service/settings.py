"""The service's own settings (``COLMEIA_SERVICE_*``): where it keeps its tables, who may call
it, how much, and where traces go. Model, store and search settings are colmeia's usual ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["DEFAULT_UPLOAD_TYPES", "ServiceSettings"]

# what the document ingester reads (colmeia.rag.ingest.SUPPORTED_SUFFIXES, and CSV whose columns
# it recognises: one document per row); a type it cannot
# read is refused at upload even when listed in COLMEIA_SERVICE_UPLOAD_TYPES
DEFAULT_UPLOAD_TYPES = (
    ".pdf",
    ".txt",
    ".text",
    ".md",
    ".markdown",
    ".html",
    ".htm",
    ".xhtml",
    ".docx",
    ".csv",
)


class ServiceSettings(BaseSettings):
    """``colmeia serve``: tables, auth, limits, uploads and telemetry (``COLMEIA_SERVICE_*``)."""

    model_config = SettingsConfigDict(
        env_prefix="COLMEIA_SERVICE_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
    )

    db: str | None = Field(
        default=None,
        description="Tables of the service (keys, jobs, audit, threads): sqlite:///path or "
        "postgresql://…?schema=name; default: SQLite file service.db in COLMEIA_HOME.",
    )
    redis_url: str | None = Field(
        default=None,
        description="redis://host:port/db for rate limits and quotas shared by several "
        "processes; unset: counted in this process.",
    )
    redis_prefix: str = Field(default="colmeia:", description="Prefix of every Redis key.")
    rate_limit_per_minute: int = Field(
        default=120, ge=1, description="Requests per minute per API key (a key may override)."
    )
    auth_failures_per_minute: int = Field(
        default=20,
        ge=1,
        description="Failed authentications per minute from one client address before its "
        "requests are refused (429) without checking their credentials.",
    )
    token_quota: int = Field(
        default=2_000_000,
        ge=1,
        description="Model tokens per API key per quota window (a key may override).",
    )
    request_token_reserve: int = Field(
        default=3_000,
        ge=1,
        description="Tokens held from a key's quota while a model-calling request runs (the "
        "most one request uses; capped at the key's quota); what it did not use is given back.",
    )
    quota_window_s: int = Field(default=86_400, ge=1, description="Length of a quota window.")
    max_upload_mb: float = Field(default=25.0, gt=0, description="Largest file accepted.")
    max_files_per_upload: int = Field(default=200, ge=1)
    max_csv_rows: int = Field(
        default=100_000,
        ge=1,
        description="Rows a CSV file of an upload may have (documents, bibliographies, "
        "registry tables); a longer one is refused (413) before a job holds it.",
    )
    max_job_records: int = Field(
        default=20_000,
        ge=1,
        description="Records one moderation job may hold (all its files); a batch over it is "
        "refused (413) at upload, counted from disk a record at a time.",
    )
    report_memory_mb: int = Field(
        default=2048,
        ge=0,
        description="Most memory (address space, MB) of the child process that writes a "
        "moderation job's report (it reads all the job's results and records); a job whose "
        "report needs more keeps its results and says why. 0 writes it in the service process.",
    )
    max_request_mb: float = Field(
        default=200.0, gt=0, description="Largest request body (all files of an upload)."
    )
    upload_types: tuple[str, ...] = Field(
        default=DEFAULT_UPLOAD_TYPES, description="File name endings accepted for upload."
    )
    job_workers: int = Field(default=2, ge=1, le=64, description="Jobs run at once per process.")
    executor: Literal["local", "ray"] = Field(
        default="local",
        description="Where moderation jobs run their records: local (this process) or ray (the "
        "Ray cluster at ray_address; pip install 'colmeia[ray]').",
    )
    ray_address: str = Field(
        default="auto",
        description="Ray cluster for executor=ray: auto (the cluster this machine joined) or "
        "ray://HOST:PORT.",
    )
    ray_workers: int = Field(
        default=2, ge=1, le=1024, description="Ray workers per moderation job (executor=ray)."
    )
    job_lease_s: float = Field(
        default=30.0,
        gt=1,
        description="A running job's lease; a job whose process died is taken over after it.",
    )
    jwt_secret: SecretStr = Field(
        default=SecretStr(""), description="HS256 secret for bearer JWTs (OIDC off when empty)."
    )
    jwt_jwks_url: str | None = Field(default=None, description="OIDC JWKS URL for RS/ES JWTs.")
    jwt_jwks_file: Path | None = Field(default=None, description="A JWKS JSON file instead.")
    jwt_issuer: str | None = Field(default=None, description="Required `iss` of JWTs.")
    jwt_audience: str | None = Field(default=None, description="Required `aud` of JWTs.")
    jwt_tenant_claim: str = Field(default="tenant", description="JWT claim naming the tenant.")
    otlp_endpoint: str | None = Field(
        default=None,
        description="OTLP/HTTP traces endpoint (e.g. http://127.0.0.1:4318/v1/traces); "
        "unset: no trace leaves the process.",
    )
    files: str = Field(
        default="local",
        description="Where uploaded files and job outputs are kept: local (this machine's "
        "COLMEIA_HOME) or s3://BUCKET/PREFIX (an S3-compatible bucket every replica shares, "
        "the local disk a cache; pip install 'colmeia[s3]').",
    )
    s3_endpoint_url: str | None = Field(
        default=None,
        description="The S3-compatible server for files=s3://… (MinIO, Ceph, Garage: "
        "http://HOST:PORT); unset: AWS S3 of s3_region.",
    )
    s3_region: str | None = Field(default=None, description="The bucket's region (files=s3://…).")
    s3_access_key_id: str | None = Field(
        default=None, description="Access key for files=s3://…; unset: AWS_ACCESS_KEY_ID etc."
    )
    s3_secret_access_key: SecretStr = Field(
        default=SecretStr(""), description="Secret key for files=s3://… (with s3_access_key_id)."
    )
    s3_path_style: bool = Field(
        default=True,
        description="Address buckets as HOST/BUCKET (MinIO and most servers) rather than "
        "BUCKET.HOST.",
    )
    log_format: Literal["json", "text"] = Field(default="json")
    default_language: Literal["pt", "en"] = Field(default="pt")
    session_hours: float = Field(default=12.0, gt=0, description="Web UI sign-in lifetime.")
    test_gate: Path | None = Field(
        default=None,
        description="Tests only: a folder of pause points (colmeia.service.gate) where jobs stop "
        "so a restart test can kill the process at a known point.",
    )
    secure_cookies: bool = Field(default=False, description="Mark UI cookies Secure (HTTPS).")
    trusted_proxies: tuple[str, ...] = Field(
        default=(),
        description="Addresses (or networks) of reverse proxies whose X-Forwarded-For / "
        "X-Forwarded-Proto name the client; empty (the default): the connection's own address "
        "is the client, and a forwarded header from anyone is ignored.",
    )
    header_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="A connection must send a request's headers within this (slow clients).",
    )
    body_timeout_s: float = Field(
        default=30.0,
        gt=0,
        description="Longest wait for the next piece of a request's body (408 after it).",
    )

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _proxies(cls, v: object) -> object:
        if isinstance(v, str):
            return tuple(p.strip() for p in v.split(",") if p.strip())
        return v

    @field_validator("upload_types", mode="before")
    @classmethod
    def _types(cls, v: object) -> object:
        if isinstance(v, str):
            v = [p.strip() for p in v.split(",") if p.strip()]
        if isinstance(v, list | tuple):
            return tuple(s if s.startswith(".") else f".{s}" for s in (str(x).lower() for x in v))
        return v

    @field_validator("files")
    @classmethod
    def _files(cls, v: str) -> str:
        v = v.strip()
        if v != "local" and not (v.startswith("s3://") and len(v) > len("s3://")):
            raise ValueError(f"{v!r} is not a storage address: use local or s3://BUCKET/PREFIX")
        return v

    def db_url(self, home: Path) -> str:
        """The service tables' URL, defaulting to ``service.db`` inside ``home``."""
        if not self.db:
            return f"sqlite:///{home / 'service.db'}"
        if "://" not in self.db:
            return f"sqlite:///{self.db}"
        return self.db
