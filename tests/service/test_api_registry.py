"""The tenant's case registry over HTTP: an admin imports cases (CSV or JSON, bad rows reported
one by one and the rest imported), anyone of the tenant looks them up, lists them and follows
their movements, and the tenant's assistant answers from the same registry. Another tenant
never sees any of it: its lookups and its assistant say "not found"."""

from __future__ import annotations

import json
from typing import Any

PROCESSES = (
    "number,filed_on,unit,case_class,subclass,rapporteur,status,location,subject\n"
    "tc 1234/2024,05/03/2024,Secex Obras,Tomada de Contas,Especial,Cons. Helena Prates,"
    "Em instrução,Gabinete do Relator,Obra da ponte do Rio Claro\n"
    "TC-000777-2023,2023-11-20,Secex Saúde,Representação,,Cons. Otávio Lins,Arquivado,"
    "Arquivo Central,Compra de insumos hospitalares\n"
    # a bad row: the filing date is not a date; it is reported and the others are imported
    "TC/000999/2024,ontem,Secex Obras,Denúncia,,Cons. Helena Prates,Em instrução,"
    "Secex Obras,Linha com data ruim\n"
)
EXPEDIENTES = (
    "number,opened_on,type,origin_unit,subject,status,location,process\n"
    "exp 2024 55,2024-04-02,Ofício,Prefeitura de Rio Claro,Resposta à diligência,Juntado,"
    "Gabinete do Relator,TC/001234/2024\n"
)
PARTIES = (
    "number,name,role\n"
    "TC/001234/2024,Construtora Ponte Alta Ltda,Responsável\n"
    # refers to a case that is neither imported nor in the registry: reported, not attached
    "TC/004321/2020,Ninguém,Interessado\n"
)
MOVEMENTS = (
    "number,seq,at,from_unit,to_unit,description,status\n"
    "TC/001234/2024,1,2024-03-05,Protocolo,Secex Obras,Autuação,Em instrução\n"
    "TC/001234/2024,2,2024-06-10,Secex Obras,Gabinete do Relator,Instrução concluída,"
    "Em instrução\n"
    "TC/001234/2024,3,2024-06-12,Gabinete do Relator,Gabinete do Relator,Vista ao MP,"
    "Em instrução\n"
)

# what only tenant A's registry holds: none of it may reach tenant B
A_FIELDS = ("Helena Prates", "Secex Obras", "Rio Claro", "Ponte Alta", "05/03/2024", "2024-03-05")


def _files(**tables: str) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (f"{name}.csv", text.encode(), "text/csv")) for name, text in tables.items()]


def _import_all(svc: Any, h: dict[str, str]) -> dict[str, Any]:
    r = svc.client.post(
        "/v1/registry/import",
        files=_files(
            processes=PROCESSES, expedientes=EXPEDIENTES, parties=PARTIES, movements=MOVEMENTS
        ),
        headers=h,
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def _small_collection(svc: Any, h: dict[str, str]) -> None:
    """The assistant needs its collection of official documents to exist."""
    law = "Lei de teste\n\nArt. 1º O prazo para responder é de vinte dias.\n"
    r = svc.client.post(
        "/v1/collections/leis/documents",
        files=[("files", ("lei.txt", law.encode(), "text/plain"))],
        headers=h,
    )
    assert svc.wait_job(r.json()["id"], h)["status"] == "succeeded"


def _ask(svc: Any, h: dict[str, str], text: str) -> dict[str, Any]:
    tid = svc.client.post("/v1/assistant/threads", json={"title": "caso"}, headers=h).json()["id"]
    r = svc.client.post(f"/v1/assistant/threads/{tid}/messages", json={"text": text}, headers=h)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_an_import_reports_each_bad_row_and_imports_the_others(make_service: Any) -> None:
    svc = make_service()
    admin = svc.key("acme", role="admin")
    report = _import_all(svc, admin)
    assert report["imported"] == {
        "processes": 2,
        "expedientes": 1,
        "parties": 1,
        "movements": 3,
        "documents": 0,
    }
    problems = {p["where"]: p["reason"] for p in report["problems"]}
    assert set(problems) == {"processes.csv:4", "parties.csv:3"}
    assert "filed_on 'ontem' is not a date" in problems["processes.csv:4"]
    assert "TC/004321/2020 is not in the registry nor in this import" in problems["parties.csv:3"]
    assert report["counts"]["processes"] == 2 and report["counts"]["movements"] == 3
    # the bad row is really not there, the good ones are
    assert svc.client.get("/v1/registry/cases/TC-000999-2024", headers=admin).status_code == 404
    assert svc.client.get("/v1/registry/cases/TC-000777-2023", headers=admin).status_code == 200


def test_a_json_file_is_imported_with_the_same_rules(make_service: Any) -> None:
    svc = make_service()
    admin = svc.key("acme", role="admin")
    doc = {
        "processos": [
            {
                "number": "TC 42/2022",
                "filed_on": "2022-01-10",
                "unit": "Secex Educação",
                "case_class": "Auditoria",
                "rapporteur": "Cons. Rui Maia",
                "status": "Em instrução",
                "location": "Secex Educação",
            },
            {"number": "TC 43/2022", "filed_on": "2022-01-11"},  # columns missing
            ["not", "an", "object"],
        ],
        "movements": [
            {
                "number": "TC/000042/2022",
                "seq": 1,
                "at": "10/01/2022",
                "to_unit": "Secex Educação",
                "description": "Autuação",
            }
        ],
    }
    r = svc.client.post(
        "/v1/registry/import",
        files=[("files", ("casos.json", json.dumps(doc).encode(), "application/json"))],
        headers=admin,
    )
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["imported"]["processes"] == 1 and report["imported"]["movements"] == 1
    reasons = {p["where"]: p["reason"] for p in report["problems"]}
    assert "column 'unit' is empty or missing" in reasons["casos.json:processos[2]"]
    assert "must be an object" in reasons["casos.json:processos[3]"]
    case = svc.client.get("/v1/registry/lookup", params={"number": "tc 42/2022"}, headers=admin)
    assert case.json()["record"]["rapporteur"] == "Cons. Rui Maia"
    assert [c["number"] for c in report["changes"]] == ["TC/000042/2022"]
    # sent again with another movement: replaced (one removed, one added), or merged
    first = doc["movements"][0]

    def upload(move: dict[str, Any]) -> list[tuple[str, tuple[str, bytes, str]]]:
        data = json.dumps({"movements": [move]}).encode()
        return [("files", ("m.json", data, "application/json"))]

    second = dict(first, seq=2, description="Diligência")
    again = svc.client.post("/v1/registry/import", files=upload(second), headers=admin).json()
    assert again["changes"][0]["added"] == {"movements": 1}
    assert again["changes"][0]["removed"] == {"movements": 1}
    merged = svc.client.post(
        "/v1/registry/import", files=upload(first), params={"merge": "true"}, headers=admin
    ).json()
    assert merged["merged"] is True
    assert (merged["changes"][0]["added"], merged["changes"][0]["removed"]) == (
        {"movements": 1},
        {},
    )


def test_only_an_admin_key_imports_and_unusable_files_are_refused(make_service: Any) -> None:
    svc = make_service()
    member = svc.key("acme")
    r = svc.client.post("/v1/registry/import", files=_files(processes=PROCESSES), headers=member)
    assert r.status_code == 403 and "admin" in r.json()["detail"]
    assert svc.client.get("/v1/registry/counts", headers=member).json()["processes"] == 0
    admin = svc.key("acme", role="admin")
    r = svc.client.post("/v1/registry/import", files=_files(casos=PROCESSES), headers=admin)
    assert r.status_code == 422 and "processes.csv" in r.json()["detail"]
    r = svc.client.post(
        "/v1/registry/import",
        files=[("files", ("x.json", b"{not json", "application/json"))],
        headers=admin,
    )
    assert r.status_code == 422 and "x.json: not JSON" in r.json()["detail"]


def test_an_import_over_the_upload_limits_is_refused_naming_the_file(make_service: Any) -> None:
    svc = make_service(max_upload_mb=0.001)
    admin = svc.key("acme", role="admin")
    big = PROCESSES + "\n".join(f"TC/{i:06d}/2024,2024-01-01" for i in range(200))
    r = svc.client.post("/v1/registry/import", files=_files(processes=big), headers=admin)
    assert r.status_code == 413 and "processes.csv is larger than" in r.json()["detail"]
    r = svc.client.post("/v1/registry/import", headers=admin)
    assert r.status_code == 422
    assert svc.client.get("/v1/registry/counts", headers=admin).json()["processes"] == 0


def test_a_case_is_found_from_a_sloppy_typing_with_where_it_is_and_since_when(
    make_service: Any,
) -> None:
    svc = make_service()
    _import_all(svc, svc.key("acme", role="admin"))
    h = svc.key("acme")  # reading needs no admin key
    for typed in ("TC/001234/2024", "tc 1234/2024", "TC-1.234-2024", "processo nº 1234/2024"):
        r = svc.client.get("/v1/registry/lookup", params={"number": typed}, headers=h)
        assert r.status_code == 200, (typed, r.text)
        case = r.json()
        assert case["number"] == "TC/001234/2024" and case["typed"] == typed
    assert case["record"]["rapporteur"] == "Cons. Helena Prates"
    # it reached the rapporteur's office on 10 June and moved inside it since: there since then
    assert case["location"]["location"] == "Gabinete do Relator"
    assert case["location"]["since"] == "2024-06-10"
    assert case["parties"] == [{"name": "Construtora Ponte Alta Ltda", "role": "Responsável"}]
    assert [m["seq"] for m in case["movements"]] == [3, 2, 1]
    same = svc.client.get("/v1/registry/cases/tc 1234 2024", headers=h).json()
    assert same["number"] == "TC/001234/2024"
    exp = svc.client.get("/v1/registry/cases/EXP-2024-00055", headers=h).json()
    assert exp["kind"] == "expediente" and exp["record"]["process"] == "TC/001234/2024"

    unknown = svc.client.get("/v1/registry/cases/TC-005555-2024", headers=h)
    assert unknown.status_code == 404
    assert unknown.json()["detail"] == "process TC/005555/2024 not found in this tenant's registry"
    invalid = svc.client.get("/v1/registry/cases/TC-1234-24", headers=h)
    assert invalid.status_code == 422 and "four digits" in invalid.json()["detail"]


def test_cases_are_listed_and_searched_a_page_at_a_time(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme", role="admin")
    _import_all(svc, h)

    def numbers(**params: Any) -> tuple[int, list[str]]:
        page = svc.client.get("/v1/registry/cases", params=params, headers=h).json()
        return page["total"], [c["number"] for c in page["items"]]

    # newest first: the expediente (April 2024), the process of March 2024, then 2023's
    assert numbers() == (3, ["EXP-2024-00055", "TC/001234/2024", "TC/000777/2023"])
    assert numbers(limit=2, offset=2) == (3, ["TC/000777/2023"])
    assert numbers(kind="process") == (2, ["TC/001234/2024", "TC/000777/2023"])
    assert numbers(q="helena") == (1, ["TC/001234/2024"])  # the rapporteur
    assert numbers(q="Ponte Alta") == (1, ["TC/001234/2024"])  # a party
    assert numbers(q="hospitalares") == (1, ["TC/000777/2023"])  # the subject
    assert numbers(q="tc 777/2023") == (1, ["TC/000777/2023"])  # a number, as typed
    assert numbers(status="arquiv") == (1, ["TC/000777/2023"])
    assert numbers(q="100%_") == (0, [])  # LIKE wildcards are taken literally


def test_the_timeline_lists_movements_oldest_first_with_paging(make_service: Any) -> None:
    svc = make_service()
    h = svc.key("acme", role="admin")
    _import_all(svc, h)
    t = svc.client.get("/v1/registry/cases/TC-001234-2024/movements", headers=h).json()
    assert t["total"] == 3 and t["order"] == "asc"
    assert [(m["at"], m["to_unit"]) for m in t["movements"]] == [
        ("2024-03-05", "Secex Obras"),
        ("2024-06-10", "Gabinete do Relator"),
        ("2024-06-12", "Gabinete do Relator"),
    ]
    assert t["location"]["since"] == "2024-06-10"
    page = svc.client.get(
        "/v1/registry/cases/TC-001234-2024/movements",
        params={"order": "desc", "limit": 1, "offset": 1},
        headers=h,
    ).json()
    assert [m["seq"] for m in page["movements"]] == [2]
    gone = svc.client.get("/v1/registry/cases/TC-005555-2024/movements", headers=h)
    assert gone.status_code == 404 and "not found" in gone.json()["detail"]


def test_the_assistant_answers_from_the_cases_the_tenant_imported(make_service: Any) -> None:
    svc = make_service()  # no model: the assistant routes a case number to the registry
    h = svc.key("acme", role="admin")
    _small_collection(svc, h)
    before = _ask(svc, h, "Como está o processo TC 1234/2024?")
    assert "Não encontrei" in before["answer"]  # the registry is empty until the import
    _import_all(svc, h)
    answer = _ask(svc, h, "Como está o processo tc 1234/2024?")["answer"]
    assert "TC/001234/2024" in answer and "Cons. Helena Prates" in answer
    assert "Gabinete do Relator, desde 10/06/2024" in answer
    assert "Construtora Ponte Alta Ltda" in answer


def test_another_tenant_never_sees_the_cases_by_api_or_by_its_assistant(
    make_service: Any,
) -> None:
    svc = make_service()
    a, b = svc.key("tenant-a", role="admin"), svc.key("tenant-b", role="admin")
    _import_all(svc, a)
    assert svc.client.get("/v1/registry/cases/TC-001234-2024", headers=a).status_code == 200

    for path, params in (
        ("/v1/registry/cases/TC-001234-2024", None),
        ("/v1/registry/lookup", {"number": "tc 1234/2024"}),
        ("/v1/registry/cases/EXP-2024-00055", None),
        ("/v1/registry/cases/TC-001234-2024/movements", None),
    ):
        r = svc.client.get(path, params=params, headers=b)
        assert r.status_code == 404 and "not found" in r.json()["detail"], path
        assert not any(f in r.text for f in A_FIELDS), (path, r.text)
    listed = svc.client.get("/v1/registry/cases", params={"q": "Helena"}, headers=b).json()
    assert listed == {"total": 0, "limit": 20, "offset": 0, "items": []}
    assert svc.client.get("/v1/registry/counts", headers=b).json()["processes"] == 0

    _small_collection(svc, b)
    answer = _ask(svc, b, "Como está o processo TC 1234/2024?")["answer"]
    assert "Não encontrei o processo TC/001234/2024" in answer
    assert not any(f in answer for f in A_FIELDS), answer


def test_the_cases_page_looks_a_case_up_in_portuguese(make_service: Any) -> None:
    svc = make_service()
    admin = svc.key("acme", role="admin")
    _import_all(svc, admin)
    signed = svc.sign_in(admin["X-API-Key"])
    assert signed.status_code == 303
    html = svc.client.get("/ui/cases", params={"number": "tc 1234/2024"}).text
    assert 'lang="pt-BR"' in html and "Processos e expedientes" in html
    assert 'data-number="TC/001234/2024"' in html and "Cons. Helena Prates" in html
    assert "Gabinete do Relator, desde 2024-06-10" in html
    assert html.index("Autuação") < html.index("Vista ao MP")  # the timeline, oldest first
    assert html.count("<tr>") >= 3 + 3  # the timeline and the list of cases
    missing = svc.client.get("/ui/cases", params={"number": "TC-005555-2024"}).text
    assert "TC/005555/2024 not found" in missing
    listed = svc.client.get("/ui/cases", params={"q": "hospitalares"}).text
    assert "TC/000777/2023" in listed and "TC/001234/2024" not in listed
