"""`moderate run --context-collection`: the product's own documents read before judging.

The product documents shipped in ``data/moderation/product_docs`` are ingested into a real
SQLite store; the moderators are colmeia's simulated model over real HTTP, with a responder that
records every prompt and whose contextual reviewer believes the documents it is shown (as the
prompt tells it to), so that the tests can check what each role read and that reading it
changes the verdict.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import ROLE_OF, read_json

from colmeia.apps.moderation.documents import ProductDocuments
from colmeia.apps.moderation.records import agent_view, parse_item
from colmeia.rag.pipeline import ingest
from colmeia.sim.engine import SimRequest, SimulatedModel
from colmeia.store import open_store
from shared_data import DATA_DIR

DOCS = DATA_DIR / "moderation" / "product_docs"
SAMPLE = DATA_DIR / "moderation" / "sample_items.json"
# Two records whose answers the documents contradict ("garantia vitalícia": every document says
# there is none) and one they confirm (the Docol tap's 5-year warranty is in its manual).
CONTRADICTED = ("13000100045", "13000100106")
CONFIRMED = "13000100143"


class DocumentReader:
    """A scripted model that keeps every user prompt by role. Its contextual reviewer scores an
    answer low when a passage shown to it says the opposite of a warranty claim in the answer;
    with no documents it cannot know, and scores it high."""

    def __init__(self) -> None:
        self.prompts: dict[str, list[str]] = {}
        self.instructions: dict[str, set[str]] = {}

    def __call__(self, req: SimRequest) -> dict[str, Any]:
        role = ROLE_OF[str((req.schema or {}).get("title"))]
        user = "\n".join(str(m.get("content") or "") for m in req.messages if m["role"] == "user")
        self.prompts.setdefault(role, []).append(user)
        system = "\n".join(
            str(m.get("content") or "") for m in req.messages if m["role"] == "system"
        )
        self.instructions.setdefault(role, set()).add(system)
        answer = user.split("ANSWER UNDER REVIEW:", 1)[-1].casefold()
        documents = user.split("PRODUCT DOCUMENTS", 1)[-1] if "PRODUCT DOCUMENTS" in user else ""
        if role == "semantic":
            return {"justification": "Clear.", "score": 5}
        if role == "contextual":
            contradicted = (
                "vitalícia" in answer and "não há garantia vitalícia" in documents.casefold()
            )
            return {"justification": "Contradicted by [D1]." if contradicted else "Fine.",
                    "score": 1 if contradicted else 5}  # fmt: skip
        if role == "suggester":
            return {"suggestions": ["State the warranty the documents give."]}
        if role == "rewriter":
            return {"can_rewrite": True, "answer": "Olá! A garantia é de 3 anos.", "reason": ""}
        return {"reasoning": "Supported by the documents.", "decision": "answer"}


def _records(tmp_path: Path, keys: tuple[str, ...]) -> Path:
    items = [r for r in read_json(SAMPLE) if str(r["id"]) in keys]
    assert len(items) == len(keys)
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def docs_store(tmp_path: Path) -> Path:
    db = tmp_path / "docs.db"
    store = open_store(f"sqlite:///{db}", cache_dir=tmp_path / "cache")
    try:
        ingest(store, "produtos", [DOCS], relative_to=DOCS)
    finally:
        store.close()
    return db


def _run(colmeia_cli: Any, srv: Any, *args: str) -> tuple[int, str, str]:
    env = {"COLMEIA_LLM_BASE_URL": srv.base_url, "COLMEIA_LLM_MODEL": "reader"}
    return colmeia_cli("moderate", "run", *args, env=env)  # type: ignore[no-any-return]


def test_each_record_is_judged_with_its_own_products_passages_cited_in_the_trail(
    tmp_path: Path, docs_store: Path, sim_server: Any, colmeia_cli: Any
) -> None:
    reader = DocumentReader()
    srv = sim_server(SimulatedModel(responder=reader, model_name="reader"))
    items = _records(tmp_path, (*CONTRADICTED, CONFIRMED))
    out = tmp_path / "ctx.jsonl"
    code, _, err = _run(
        colmeia_cli, srv, str(items), "-o", str(out), "--policy", "none",
        "--context-collection", "produtos", "--store", str(docs_store),
    )  # fmt: skip
    assert code == 0, err
    assert "3 passages per record from collection produtos (14 documents)" in err
    lines = {r["key"]: r for r in map(json.loads, out.read_text().splitlines())}
    expected_doc = {
        "13000100045": "kingston-ssd-480gb.md",
        "13000100106": "docol-torneira-gourmet.md",
        "13000100143": "docol-torneira-gourmet.md",
    }
    for key, doc in expected_doc.items():
        cited = lines[key]["documents"]
        assert cited["collection"] == "produtos"
        assert 1 <= len(cited["passages"]) <= 3
        assert all(p.startswith(doc + "#") for p in cited["passages"]), cited
        step = lines[key]["trail"][0]
        assert step["role"] == "documents"
        assert [p["id"] for p in step["output"]["passages"]] == cited["passages"]
        assert lines[key]["usage"]["calls"] == sum(
            1 for t in lines[key]["trail"] if t["role"] not in ("documents", "policy")
        )
    # The warranty passage is shown to the reviewer of the Kingston answer, first (the question
    # is answered in it), and never a passage of another product.
    kingston = next(p for p in reader.prompts["contextual"] if "equipe Kingston" in p)
    assert "[D1]" in kingston
    assert "Garantia do fabricante de 3 anos" in kingston
    assert "Docol" not in kingston
    # The semantic reviewer does not check facts: it gets no documents.
    assert not any("PRODUCT DOCUMENTS" in p for p in reader.prompts["semantic"])
    assert any("PRODUCT DOCUMENTS" in p for p in reader.prompts["rewriter"])
    manifest = read_json(out.with_name("ctx.manifest.json"))
    assert manifest["settings"]["documents"]["collection"] == "produtos"
    assert manifest["settings"]["documents"]["passages"] == 3


def test_the_documents_change_the_verdict_and_compare_says_what_changed(
    tmp_path: Path, docs_store: Path, sim_server: Any, colmeia_cli: Any
) -> None:
    srv = sim_server(SimulatedModel(responder=DocumentReader(), model_name="reader"))
    items = _records(tmp_path, (*CONTRADICTED, CONFIRMED))
    plain, ctx = tmp_path / "plain.jsonl", tmp_path / "ctx.jsonl"
    assert _run(colmeia_cli, srv, str(items), "-o", str(plain), "--policy", "none")[0] == 0
    code, _, err = _run(
        colmeia_cli, srv, str(items), "-o", str(ctx), "--policy", "none",
        "--context-collection", "produtos", "--store", str(docs_store),
    )  # fmt: skip
    assert code == 0, err
    outcome = {
        name: {r["key"]: r["outcome"] for r in map(json.loads, f.read_text().splitlines())}
        for name, f in (("plain", plain), ("ctx", ctx))
    }
    assert outcome["plain"] == dict.fromkeys((*CONTRADICTED, CONFIRMED), "KEEP_ORIGINAL")
    assert outcome["ctx"] == {
        CONTRADICTED[0]: "ANSWER_REVISED",
        CONTRADICTED[1]: "ANSWER_REVISED",
        CONFIRMED: "KEEP_ORIGINAL",
    }
    assert json.loads(plain.read_text().splitlines()[0])["documents"] is None
    code, shown, err = colmeia_cli(
        "moderate", "compare", str(plain), str(ctx), "--gold", str(items), "-o", str(tmp_path / "c")
    )
    assert code == 0, err
    assert "≠ context collection (product documents): None → 'produtos'" in shown


def test_with_documents_each_role_is_told_how_to_weigh_them_and_without_nothing_changes(
    tmp_path: Path, docs_store: Path, sim_server: Any, colmeia_cli: Any
) -> None:
    """A block of passages alone does not tell a model what they are worth: a reviewer told to
    trust "only the context" scored answers the manual confirms as invented (the 0.5B model on
    the document_checks dev set). With documents, every role that reads them is told that a fact
    they state is supported and one they contradict is wrong; a run without them gets the
    instructions it always had."""
    plain_reader, ctx_reader = DocumentReader(), DocumentReader()
    items = _records(tmp_path, (*CONTRADICTED, CONFIRMED))
    plain_srv = sim_server(SimulatedModel(responder=plain_reader, model_name="reader"))
    ctx_srv = sim_server(SimulatedModel(responder=ctx_reader, model_name="reader"))
    args = (str(items), "--policy", "none")
    assert _run(colmeia_cli, plain_srv, *args, "-o", str(tmp_path / "p.jsonl"))[0] == 0
    code, _, err = _run(
        colmeia_cli, ctx_srv, *args, "-o", str(tmp_path / "c.jsonl"),
        "--context-collection", "produtos", "--store", str(docs_store),
    )  # fmt: skip
    assert code == 0, err
    rule = "a fact they contradict is wrong"
    for role in ("contextual", "suggester", "rewriter", "decider"):
        (told,) = ctx_reader.instructions[role]
        assert rule in told, role
        assert "a fact they state is supported" in told, role
    (contextual,) = ctx_reader.instructions["contextual"]
    assert "contradict scores 0 or 1" in contextual
    assert all("compare each fact of the answer" in p for p in ctx_reader.prompts["contextual"])
    (rewriter,) = ctx_reader.instructions["rewriter"]
    assert "using only facts from the context,\nthe product documents and rules" in rewriter
    # The semantic reviewer checks no facts; and a plain run reads no word about documents.
    assert ctx_reader.instructions["semantic"] == plain_reader.instructions["semantic"]
    for role, told in plain_reader.instructions.items():
        assert not any("documents" in t.casefold() for t in told), role
    assert not any("PRODUCT DOCUMENTS" in p for ps in plain_reader.prompts.values() for p in ps)


def test_a_missing_collection_is_one_line_naming_it(
    tmp_path: Path, docs_store: Path, colmeia_cli: Any
) -> None:
    items = _records(tmp_path, (CONFIRMED,))
    code, out, err = colmeia_cli(
        "moderate", "run", str(items), "-o", str(tmp_path / "r.jsonl"),
        "--context-collection", "manuais", "--store", str(docs_store),
        env={"COLMEIA_LLM_BASE_URL": "http://127.0.0.1:9/v1", "COLMEIA_LLM_MODEL": "m"},
    )  # fmt: skip
    assert code == 2
    text = " ".join((out + err).split())
    assert "context collection 'manuais' is not in the store" in text
    assert "colmeia ingest DOCS --collection manuais" in text
    assert "Traceback" not in out + err
    assert not (tmp_path / "r.jsonl").exists()


async def test_a_product_without_documents_gets_no_passage_of_another_product(
    docs_store: Path,
) -> None:
    """The title words match the Kingston SSD's manual, but the brand does not: no passage."""
    item = next(r for r in read_json(SAMPLE) if str(r["id"]) == CONTRADICTED[0])
    item["context"]["BRAND"] = "Samsung"
    view = agent_view(parse_item(item, "test"))
    source = ProductDocuments.open(str(docs_store), "produtos")
    try:
        query, passages = await source.for_record(view)
        assert query == "Samsung SSD 480GB SATA III"
        assert passages == []
        item["context"]["BRAND"] = "Kingston"
        _, passages = await source.for_record(agent_view(parse_item(item, "test")))
        assert {p.doc_id for p in passages} == {"kingston-ssd-480gb.md"}
    finally:
        source.close()


def test_the_context_settings_come_from_the_environment_and_the_config_file(
    tmp_path: Path,
) -> None:
    from colmeia.apps.moderation.roles import load_config

    env = {"COLMEIA_MODERATION_CONTEXT_COLLECTION": "produtos",
           "COLMEIA_MODERATION_CONTEXT_PASSAGES": "2"}  # fmt: skip
    cfg = load_config(env=env)
    assert (cfg.context_collection, cfg.context_passages, cfg.context_store) == (
        "produtos",
        2,
        None,
    )
    file = tmp_path / "m.toml"
    file.write_text('context_collection = "manuais"\ncontext_store = "x.db"\n', encoding="utf-8")
    cfg = load_config(file, env={})
    assert (cfg.context_collection, cfg.context_passages, cfg.context_store) == (
        "manuais",
        3,
        "x.db",
    )


def test_a_warranty_the_manual_states_is_no_policy_violation_but_one_it_does_not_state_is(
    tmp_path: Path, docs_store: Path, sim_server: Any, colmeia_cli: Any
) -> None:
    """The store policy's warranty check reads the product's documents too: the Docol manual
    gives 5 years, so an answer promising 5 years is not flagged with the documents, while 10
    years still is. Without documents the listing says nothing of a warranty: both are flagged."""
    base = next(r for r in read_json(SAMPLE) if str(r["id"]) == CONFIRMED)
    # A listing that says nothing of the warranty: only the manual does.
    base["context"] = {k: v for k, v in base["context"].items() if k in ("title", "BRAND", "TIPO")}
    items = []
    for years in (5, 10):
        item = json.loads(json.dumps(base))
        item["id"] = f"{CONFIRMED}{years}"
        item["answer"] = (
            f"Olá! A torneira tem garantia de {years} anos. Atenciosamente, equipe Docol."
        )
        items.append(item)
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    srv = sim_server(SimulatedModel(responder=DocumentReader(), model_name="reader"))

    def warranty_flags(out: Path) -> dict[str, bool]:
        rows = map(json.loads, out.read_text().splitlines())
        return {
            r["key"][-2:].lstrip("3"): any(
                t["role"] == "policy" and "warranty" in json.dumps(t["output"]) for t in r["trail"]
            )
            for r in rows
        }

    plain, ctx = tmp_path / "plain.jsonl", tmp_path / "ctx.jsonl"
    assert _run(colmeia_cli, srv, str(path), "-o", str(plain))[0] == 0
    code, _, err = _run(
        colmeia_cli, srv, str(path), "-o", str(ctx),
        "--context-collection", "produtos", "--store", str(docs_store),
    )  # fmt: skip
    assert code == 0, err
    assert warranty_flags(plain) == {"5": True, "10": True}
    assert warranty_flags(ctx) == {"5": False, "10": True}
