"""The evaluation's HTML reports: the retrieval table (seconds per query as mean ± sd), the K
sweep and generation figures (rank 1 with its control, every judged work, per field); and the
labelled set's table."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from colmeia.apps.literature.evaluate import EvalReport
from colmeia.apps.literature.labelled import METRICS, LabelledReport
from colmeia.eval.report import HtmlReport, bar_figure, histogram_figure, write_json
from colmeia.eval.stats import mean_sd_text

__all__ = ["eval_report", "labelled_report"]


def _seconds(report: EvalReport, name: str) -> str:
    """``"mean ± sd"`` seconds per query of ``name`` (the mean alone for one query)."""
    return mean_sd_text(report.seconds.get(name), report.seconds_sd.get(name))


def _spread(figures: object) -> str:
    """A ``{mean, sd, n}`` figure as ``"mean ± sd (n)"``."""
    if not isinstance(figures, Mapping) or not figures.get("n"):
        return "n/a"
    return f"{mean_sd_text(figures.get('mean'), figures.get('sd'))} (n = {figures['n']})"


def eval_report(report: EvalReport, folder: Path) -> Path:
    """Write ``report.html`` (with plots) and ``eval.json`` into ``folder``."""
    page = HtmlReport(f"Avaliação da revisão — {report.collection}")
    page.paragraph(
        f"{report.queries} consultas sintéticas (uma por trabalho, a partir do resumo); "
        f"{report.excluded_title} parecidas com o título foram excluídas.",
        note=True,
    )
    for note in report.notes:
        page.paragraph(note, note=True)
    if report.query_profile.get("queries"):
        page.heading("Consultas")
        page.metrics(dict(report.query_profile))
    cols = ["mean_rank", "mean_rank_found", "mrr", "p@1", "not_found@5"]
    page.heading("Busca de trabalhos")
    page.table(
        ["ranking", *cols, "s/query"],
        [
            [name, *(m.get(c) for c in cols), _seconds(report, name)]
            for name, m in report.variants.items()
        ],
    )
    names = list(report.variants)
    page.figure(
        "mrr",
        bar_figure(
            names, [float(str(report.variants[n]["mrr"])) for n in names], title="MRR", limit=(0, 1)
        ),
        "MRR por ranking",
    )
    page.heading("Número de candidatos K")
    ks = sorted(report.k_sweep)
    page.table(
        ["K", "mrr", "p@1", "not_found@5"],
        [[k, *(report.k_sweep[k].get(c) for c in ("mrr", "p@1", "not_found@5"))] for k in ks],
    )
    page.figure(
        "ksweep",
        bar_figure(
            [str(k) for k in ks],
            [float(str(report.k_sweep[k]["mrr"])) for k in ks],
            title="MRR@10 por K",
            limit=(0, 1),
        ),
        "MRR@10 conforme o número de candidatos",
    )
    page.heading("Geração")
    gen = report.generation
    page.metrics({k: v for k, v in gen.items() if v is not None and not isinstance(v, dict)})
    if "generation" in report.seconds:
        page.metrics({"s/query (generation)": _seconds(report, "generation")})
    every = gen.get("all_works")
    if isinstance(every, dict):
        keys = [k for k in every if not k.startswith("answer_distance")]
        page.heading("Todos os trabalhos julgados vs. só o 1º", level=3)
        page.table(
            ["", *keys],
            [
                [f"{gen.get('works_judged')} trabalhos", *(every.get(k) for k in keys)],
                [f"1º de {gen.get('judged')} consultas", *(gen.get(k) for k in keys)],
            ],
        )
    for label, key in (("todos os trabalhos", "fields"), ("só o 1º", "fields_rank_1")):
        fields = gen.get(key)
        if isinstance(fields, dict) and fields:
            page.heading(f"Por campo da leitura ({label}): média ± dp", level=3)
            page.table(
                ["campo", "relevância (0-3 / 3)", "similaridade ao resumo"],
                [
                    [
                        name,
                        _spread(f.get("answer_relevance")),
                        _spread(f.get("similarity_to_abstract")),
                    ]
                    for name, f in fields.items()
                ],
            )
    if report.samples:
        pairs = [
            ("relevância do contexto", "context_relevance"),
            ("relevância do contexto (aleatório)", "context_relevance_random_context"),
            ("fidelidade", "faithfulness"),
            ("fidelidade (contexto aleatório)", "faithfulness_random_context"),
            ("relevância do contexto, com distratores", "context_relevance_with_distractors"),
            ("distratores julgados relevantes", "distractors_judged_relevant"),
            ("relevância da resposta", "answer_relevance"),
            ("relevância da resposta (aleatório)", "answer_relevance_random_context"),
            ("similaridade ao resumo", "answer_similarity_to_abstract"),
        ]
        shown = [(label, float(str(gen[key]))) for label, key in pairs if gen.get(key) is not None]
        page.figure(
            "generation",
            bar_figure(
                [label for label, _ in shown],
                [v for _, v in shown],
                title="Geração: contexto recuperado vs. contexto aleatório (controle)",
                annotations=[f"{v:.2f}" for _, v in shown],
                limit=(0, 1.1),
            ),
            "Médias sobre as consultas julgadas (juiz: o modelo configurado, rubrica por item)",
        )
        page.figure(
            "faithfulness",
            histogram_figure(
                [s.faithfulness for s in report.samples if s.faithfulness is not None],
                title="Fidelidade por consulta",
                xlabel="afirmações sustentadas pelos trechos (fração)",
                bins=[i / 10 for i in range(11)],
            ),
            "Distribuição da fidelidade por consulta",
        )
    write_json(folder / "eval.json", report.as_dict())
    return page.write(folder)


def labelled_report(report: LabelledReport, folder: Path) -> Path:
    """Write the labelled set's ``report.html`` (its table and an nDCG@10 plot) and
    ``eval.json`` into ``folder``."""
    page = HtmlReport(f"Conjunto rotulado — {report.collection}")
    page.paragraph(
        f"{report.questions} perguntas com vários trabalhos relevantes cada ({report.source}).",
        note=True,
    )
    for note in [*report.skipped, *report.notes]:
        page.paragraph(note, note=True)
    page.table(
        ["ranking", *METRICS, "s/query"],
        [
            [
                name,
                *(m.get(c) for c in METRICS),
                mean_sd_text(report.seconds[name]["mean"], report.seconds[name]["sd"]),
            ]
            for name, m in report.variants.items()
        ],
    )
    names = list(report.variants)
    page.figure(
        "ndcg",
        bar_figure(
            names, [report.variants[n]["ndcg@10"] for n in names], title="nDCG@10", limit=(0, 1)
        ),
        "nDCG@10 por ranking",
    )
    write_json(folder / "eval.json", report.as_dict())
    return page.write(folder)
