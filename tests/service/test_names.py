"""One name rule for collections at every route, the UI and the CLI (issue 20: the library
import accepted `ação`, `٣٤` and `..` that every other route then refused, so such a collection
could never be listed or deleted)."""

from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import quote

import pytest

from colmeia.errors import ConfigurationError
from colmeia.store.base import validate_collection_name

LAW = "Art. 1º Esta lei dispõe sobre o acesso à informação pública.\n"


def _upload(svc: Any, h: dict[str, str], name: str) -> Any:
    files = [("files", ("lei.txt", LAW.encode(), "text/plain"))]
    return svc.client.post(f"/v1/collections/{quote(name)}/documents", files=files, headers=h)


@pytest.mark.parametrize("name", ["ação", "Ñandú", "leis-2024", "v1.2_final", "法律"])
def test_a_good_name_in_any_alphabet_is_created_listed_and_deleted_everywhere(
    make_service: Any, name: str
) -> None:
    svc = make_service()
    h = svc.key("acme")
    r = _upload(svc, h, name)
    assert r.status_code == 202, r.text
    assert svc.wait_job(r.json()["id"], h)["status"] == "succeeded"
    assert name in [c["name"] for c in svc.client.get("/v1/collections", headers=h).json()]
    docs = svc.client.get(f"/v1/collections/{quote(name)}/documents", headers=h)
    assert [d["doc_id"] for d in docs.json()] == ["lei.txt"]
    lib = svc.client.post(
        f"/v1/collections/{quote(name)}/library",
        files=[("files", ("refs.ris", b"TY  - JOUR\nTI  - A\nER  - \n", "text/plain"))],
        headers=h,
    )
    assert lib.status_code == 202, lib.text
    assert svc.client.delete(f"/v1/collections/{quote(name)}", headers=h).status_code == 204
    assert validate_collection_name(name) == name  # the CLI's and the store's rule


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("٣٤", "'٣' is not allowed"),
        ("..", "'.' is not allowed first"),
        (".oculta", "'.' is not allowed first"),
        ("a b", "' ' is not allowed"),
        ("x" * 65, "over 64"),
        ("ac\u0327a\u0303o", "not in NFC"),
    ],
)
def test_a_bad_name_is_refused_the_same_way_at_every_creating_route_and_the_cli(
    make_service: Any, name: str, why: str
) -> None:
    svc = make_service()
    h = svc.key("acme")
    refusals = [
        _upload(svc, h, name),
        svc.client.post("/v1/collections", json={"name": name}, headers=h),
        svc.client.post(
            f"/v1/collections/{quote(name, safe='')}/library",
            files=[("files", ("refs.ris", b"TY  - JOUR\nER  - \n", "text/plain"))],
            headers=h,
        ),
    ]
    for r in refusals:
        assert r.status_code in (404, 422), r.text
        if r.status_code == 422:
            assert why in r.text, r.text
    with pytest.raises(ConfigurationError, match=why.replace("(", r"\(")):
        validate_collection_name(name)


def test_a_collection_made_under_the_old_rule_stays_listable_and_deletable(
    make_service: Any,
) -> None:
    svc = make_service()
    h = svc.key("acme")
    svc.state.tenants.store("acme")
    # what the old library import let through (str.isalnum): Arabic-Indic digits, written
    # straight into the tenant's store as that release did
    with sqlite3.connect(svc.home / "tenants" / "acme" / "colmeia.db") as db:
        db.execute("INSERT INTO collections(name) VALUES ('٣٤')")
    assert "٣٤" in [c["name"] for c in svc.client.get("/v1/collections", headers=h).json()]
    assert svc.client.get(f"/v1/collections/{quote('٣٤')}/documents", headers=h).json() == []
    assert svc.client.delete(f"/v1/collections/{quote('٣٤')}", headers=h).status_code == 204
    assert svc.client.get("/v1/collections", headers=h).json() == []
