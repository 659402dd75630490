"""``colmeia keys create | list | revoke``: API keys of the service's tenants."""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import orjson
import typer
from rich.console import Console
from rich.table import Table

from colmeia.errors import ColmeiaError

if TYPE_CHECKING:
    from colmeia.service.db import Database

app = typer.Typer(help="API keys of the service (one tenant per key).", no_args_is_help=True)
console = Console()
err_console = Console(stderr=True)


@contextmanager
def _db() -> Iterator[Database]:
    from colmeia.config import get_settings
    from colmeia.service.db import open_database
    from colmeia.service.settings import ServiceSettings

    try:
        db = open_database(ServiceSettings().db_url(get_settings().home))
    except ColmeiaError as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    try:
        yield db
    except ColmeiaError as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    finally:
        db.close()


@app.command()
def create(
    tenant: str = typer.Option(..., "--tenant", "-t", help="Tenant id (created if new)."),
    name: str = typer.Option(..., "--name", "-n", help="Who or what uses the key."),
    admin: bool = typer.Option(
        False, "--admin", help="May read the tenant's audit log and import its case registry."
    ),
    rate_limit: int | None = typer.Option(None, help="Requests per minute (default: service's)."),
    token_quota: int | None = typer.Option(None, help="Model tokens per quota window."),
    as_json: bool = typer.Option(False, "--json", help="Print the key as JSON."),
) -> None:
    """Create a key and print it once (only its hash is kept)."""
    from colmeia.service.keys import create_key

    with _db() as db:
        info, plain = create_key(
            db,
            tenant,
            name,
            role="admin" if admin else "member",
            rate_limit=rate_limit,
            token_quota=token_quota,
        )
    if as_json:
        sys.stdout.write(orjson.dumps({**info.as_dict(), "key": plain}).decode() + "\n")
        return
    console.print(f"key [bold]{info.id}[/] for tenant [bold]{info.tenant_id}[/] ({info.name}):")
    sys.stdout.write(plain + "\n")
    err_console.print("[dim]Store it now: it cannot be shown again.[/]")


def _when(ts: float | None) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "-"


@app.command("list")
def list_(
    tenant: str | None = typer.Option(None, "--tenant", "-t", help="Only this tenant's keys."),
    as_json: bool = typer.Option(False, "--json", help="JSON output."),
) -> None:
    """List keys (never their secrets)."""
    from colmeia.service.keys import list_keys

    with _db() as db:
        keys = list_keys(db, tenant)
    if as_json:
        sys.stdout.write(orjson.dumps([k.as_dict() for k in keys]).decode() + "\n")
        return
    table = Table()
    for col in (
        "id",
        "tenant",
        "name",
        "role",
        "rate/min",
        "quota",
        "created",
        "last used",
        "state",
    ):
        table.add_column(col)
    for k in keys:
        table.add_row(
            k.id,
            k.tenant_id,
            k.name,
            k.role,
            str(k.rate_limit or "default"),
            str(k.token_quota or "default"),
            _when(k.created_at),
            _when(k.last_used_at),
            "active" if k.active else f"revoked {_when(k.revoked_at)}",
        )
    console.print(table)


@app.command()
def revoke(
    key_id: str = typer.Argument(..., help="The key's id (see `colmeia keys list`)."),
) -> None:
    """Revoke a key at once (its web sign-ins end too)."""
    from colmeia.service.keys import revoke_key

    with _db() as db:
        if not revoke_key(db, key_id):
            err_console.print(f"[red]error:[/] no active key {key_id!r}")
            raise typer.Exit(2)
    console.print(f"key {key_id} revoked")
