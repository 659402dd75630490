"""The evaluation's HTML report: the retrieval table, the K sweep and generation figures."""

from __future__ import annotations

from pathlib import Path

from colmeia.apps.literature.evaluate import EvalReport
from colmeia.eval.report import HtmlReport, bar_figure, histogram_figure, write_json

__all__ = ["eval_report"]


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
            [name, *(m.get(c) for c in cols), report.seconds.get(name, 0.0)]
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
    page.metrics({k: v for k, v in gen.items() if v is not None})
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
