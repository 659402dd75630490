"""The boundary check for text no store can hold (issue 34): a NUL or a lone surrogate in a
path, a query or a JSON body is a 422 naming where it is — checked on a small real FastAPI app
that uses the same dependency as `colmeia serve`."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import Body, Depends, FastAPI
from fastapi.testclient import TestClient

from colmeia.service.text_guard import bad_text, check_text


@pytest.fixture(scope="module")
def client() -> TestClient:
    app = FastAPI(dependencies=[Depends(check_text)])

    @app.post("/echo/{name}")
    def echo(name: str, q: str = "", payload: Any = Body(default=None)) -> dict[str, Any]:
        return {"name": name, "q": q, "payload": payload}

    return TestClient(app)


def _error(response: Any) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    (error,) = response.json()["detail"]
    assert error["type"] == "invalid_text"
    return error  # type: ignore[no-any-return]


def test_what_text_cannot_hold_is_named() -> None:
    assert bad_text("texto comum, com acentos e 😀") is None
    assert bad_text("a\x00b") == "contains a NUL character (U+0000), which text cannot hold"
    assert bad_text("x\ud800") == (
        "contains a lone surrogate (U+D800): half of a UTF-16 pair, not a character; "
        "send the text as UTF-8"
    )
    assert "(U+DFFF)" in (bad_text("\udfff") or "")


def test_a_lone_surrogate_deep_in_a_body_names_its_place(client: TestClient) -> None:
    body = b'{"a": {"b": ["ok", "x\\ud800"]}}'
    response = client.post("/echo/n", content=body, headers={"content-type": "application/json"})
    error = _error(response)
    assert error["loc"] == ["body", "a", "b", 1]
    assert error["msg"].startswith("a.b.1 contains a lone surrogate (U+D800)")
    assert error["input"] is None  # the body is not echoed


def test_a_bad_key_and_an_upper_case_escape_and_a_nul_are_refused(client: TestClient) -> None:
    json_type = {"content-type": "application/json"}
    error = _error(client.post("/echo/n", content=b'{"\\uD83D": 1}', headers=json_type))
    assert error["loc"] == ["body"] and error["msg"].startswith("body contains a lone")
    error = _error(client.post("/echo/n", content=b'["a", "b\\u0000"]', headers=json_type))
    assert error["loc"] == ["body", 1] and "NUL" in error["msg"]


def test_a_pair_of_surrogates_is_one_character_and_passes(client: TestClient) -> None:
    body = b'{"t": "\\ud83d\\ude00"}'
    response = client.post("/echo/n", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 200 and response.json()["payload"] == {"t": "😀"}


def test_a_query_or_a_path_holding_a_nul_is_refused_with_a_short_prefix(
    client: TestClient,
) -> None:
    error = _error(client.post("/echo/n", params={"q": "a" * 30 + "\x00"}))
    assert error["loc"] == ["query", "q"] and error["input"] == "a" * 20
    assert error["msg"].startswith("q contains a NUL")
    error = _error(client.post("/echo/ab%00"))
    assert error["loc"] == ["path", "name"] and error["input"] == "ab\x00"


def test_a_body_that_is_not_json_is_left_to_fastapi(client: TestClient) -> None:
    broken = b'{"t": "\\ud800"'  # the escape is there, the JSON is cut
    response = client.post("/echo/n", content=broken, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] == "json_invalid"
    # not JSON at all: the body is not read for escapes
    plain = client.post("/echo/n", content=b"\\ud800", headers={"content-type": "text/plain"})
    assert plain.status_code == 200
