"""The words of the moderation report and comparison, in English and Brazilian Portuguese.

Texts are written in English in the code and looked up here for ``pt-BR``; a text without a
translation is shown in English (a test checks that every text the report uses has one).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["REPORT_LANGUAGES", "translator"]

REPORT_LANGUAGES = ("en", "pt-BR")

PT_BR: dict[str, str] = {
    "What differs between the runs": "O que difere entre as execuções",
    "A run has no manifest: which settings, templates and policy it used is unknown.": (
        "Uma execução não tem manifesto: não se sabe que configurações, modelos de prompt e "
        "política ela usou."
    ),
    "Same settings, templates and policy.": "Mesmas configurações, modelos de prompt e política.",
    # titles and sections
    "Moderation report": "Relatório de moderação",
    "Comparison of two moderation runs": "Comparação de duas execuções de moderação",
    "Run": "Execução",
    "Runs": "Execuções",
    "Outcomes": "Desfechos",
    "First review vs labels": "Primeira revisão × rótulos",
    "What happened to flagged items": "O que aconteceu com os itens sinalizados",
    "Why answers were withheld": "Por que respostas foram retidas",
    "Store policy": "Política da loja",
    "Accuracy of the first review by group": "Acurácia da primeira revisão por grupo",
    "Score change of accepted rewrites": "Variação da nota das reescritas aceitas",
    "Human review": "Revisão humana",
    "Latency and throughput": "Latência e vazão",
    "Tokens and cost": "Tokens e custo",
    "Not evaluated": "Não avaliados",
    "Differences per item": "Diferenças por item",
    "Metrics side by side": "Métricas lado a lado",
    # notices
    "Answers in this run came from colmeia's simulated model: placeholder text, not a real "
    "model's. The figures show how the system behaves, not how good a model is.": (
        "As respostas desta execução vieram do modelo simulado do colmeia: texto de "
        "preenchimento, não de um modelo real. Os números mostram o comportamento do sistema, "
        "não a qualidade de um modelo."
    ),
    "This results file mixes runs made with different settings (--allow-mixed): {details}.": (
        "Este arquivo de resultados mistura execuções com configurações diferentes "
        "(--allow-mixed): {details}."
    ),
    "No run manifest was found beside the results: models, prompts and settings are unknown.": (
        "Nenhum manifesto de execução junto aos resultados: modelos, prompts e configurações "
        "são desconhecidos."
    ),
    "The last run did not finish ({status}): {missing} records have no result line.": (
        "A última execução não terminou ({status}): {missing} registros não têm linha de resultado."
    ),
    # run table
    "setting": "configuração",
    "value": "valor",
    "colmeia version": "versão do colmeia",
    "started": "início",
    "ended": "fim",
    "threshold": "limiar",
    "rewrite cap": "limite de reescritas",
    "audit language": "idioma da auditoria",
    "policy": "política",
    "default policy (no file)": "política padrão (sem arquivo)",
    "Items compared": "Itens comparados",
    "gold records": "registros rotulados",
    "shared items (evaluated in both runs)": "itens em comum (avaliados nas duas execuções)",
    "left out": "deixados de fora",
    "items evaluated in {run}": "itens avaliados em {run}",
    "{n} items were left out of every metric: {reasons}.": "{n} itens ficaram fora de todas as métricas: {reasons}.",
    "Same labelled inputs, two results files. Every metric is computed on the items both runs evaluated (the shared items); differences per item list the items whose outcome differs, with the label.": "Mesmas entradas rotuladas, dois arquivos de resultados. Toda métrica é calculada sobre os itens que as duas execuções avaliaram (os itens em comum); as diferenças por item listam os itens cujo desfecho difere, com o rótulo.",
    "items evaluated in this run": "itens avaliados nesta execução",
    "ERROR results in this run": "resultados ERROR nesta execução",
    "shared items compared": "itens em comum comparados",
    "F1 (flagged)": "F1 (sinalizados)",
    "F1 (keep)": "F1 (mantidos)",
    "macro F1": "F1 macro",
    "TP (flagged, label incorrect)": "VP (sinalizado, rótulo incorreto)",
    "FP (flagged, label correct)": "FP (sinalizado, rótulo correto)",
    "FN (kept, label incorrect)": "FN (mantido, rótulo incorreto)",
    "TN (kept, label correct)": "VN (mantido, rótulo correto)",
    "mean rewrites of flagged items": "média de reescritas dos itens sinalizados",
    "Significance of the difference (McNemar)": "Significância da diferença (McNemar)",
    "p-value": "valor-p",
    "test": "teste",
    "exact binomial": "binomial exato",
    "chi-square, continuity-corrected": "qui-quadrado com correção de continuidade",
    "no discordant pairs": "nenhum par discordante",
    "On the shared items, only the items one run's first review got right and the other's "
    "wrong count; a p-value below 0.05 means a difference this large is unlikely if the two "
    "runs were equally accurate.": (
        "Nos itens em comum, só contam os itens que a primeira revisão de uma execução acertou "
        "e a da outra errou; um valor-p abaixo de 0,05 indica que uma diferença desse tamanho é "
        "improvável se as duas execuções fossem igualmente precisas."
    ),
    "Outcomes by label group (Table 4)": "Desfechos por grupo de rótulo (Tabela 4)",
    "label group": "grupo de rótulo",
    "label correct": "rótulo correto",
    "label incorrect": "rótulo incorreto",
    "Accuracy by segment (Table 5)": "Acurácia por segmento (Tabela 5)",
    "Score change of accepted rewrites (Fig. 4)": "Variação da nota das reescritas aceitas (Fig. 4)",
    "Score change (final − original, out of 10) of accepted rewrites": "Variação da nota (final − original, de 10) das reescritas aceitas",
    "accepted rewrites": "reescritas aceitas",
    "mean change": "variação média",
    "merchant feedback": "feedback do lojista",
    "Merchant feedback beside the original": "Feedback do lojista ao lado da original",
    "original": "original",
    "final answer": "resposta final",
    "built-in default (no policy file)": "padrão embutida (sem arquivo de política)",
    "none: pure-model review, no rule checked": (
        "nenhuma: revisão só pelos modelos, nenhuma regra verificada"
    ),
    "policy checks": "verificações da política",
    "none": "nenhuma",
    "not recorded": "não registrado",
    "prompts folder": "pasta de prompts",
    "packaged templates only": "só os modelos de prompt do pacote",
    "prompt templates": "modelos de prompt",
    "role": "papel",
    "model": "modelo",
    "endpoint": "endpoint",
    "temperature": "temperatura",
    "price in / out per 1M tokens": "preço entrada / saída por 1M tokens",
    "run": "execução",
    "status": "situação",
    "written": "escritos",
    "items/min": "itens/min",
    "simulated answers": "respostas simuladas",
    # items
    "{results} result lines, {gold} labelled input records, {evaluated} evaluated, "
    "{not_evaluated} not evaluated.": (
        "{results} linhas de resultado, {gold} registros rotulados, {evaluated} avaliados, "
        "{not_evaluated} não avaliados."
    ),
    "outcome": "desfecho",
    "items": "itens",
    "share": "proporção",
    "How every item ended.": "Como cada item terminou.",
    # first review
    "Kept = semantic + contextual above the threshold on the original answer (and no policy "
    "violation); flagged = everything else. Positive class: flagged (the label says the answer "
    "is incorrect). n/a: nothing to measure.": (
        "Mantido = semântico + contextual acima do limiar na resposta original (e nenhuma "
        "violação de política); sinalizado = o resto. Classe positiva: sinalizado (o rótulo diz "
        "que a resposta está incorreta). n/a: nada a medir."
    ),
    "accuracy": "acurácia",
    "precision": "precisão",
    "recall": "revocação",
    "F1": "F1",
    "label \\ first review": "rótulo \\ primeira revisão",
    "keep": "manter",
    "flag": "sinalizar",
    "keep (label: correct)": "manter (rótulo: correta)",
    "flag (label: incorrect)": "sinalizar (rótulo: incorreta)",
    "First review": "Primeira revisão",
    "Rows: label; columns: first review; each cell with its share of the row.": (
        "Linhas: rótulo; colunas: primeira revisão; cada célula com sua proporção na linha."
    ),
    "label": "rótulo",
    "predicted": "previsto",
    # flagged
    "Items the first review flagged, by how they ended and whether the label agreed that the "
    "original answer was incorrect.": (
        "Itens sinalizados pela primeira revisão, por desfecho e se o rótulo concordava que a "
        "resposta original estava incorreta."
    ),
    "label agrees (incorrect)": "rótulo concorda (incorreta)",
    "label disagrees (correct)": "rótulo discorda (correta)",
    "total": "total",
    "% of flagged": "% dos sinalizados",
    "mean rewrites": "média de reescritas",
    "accepted (ANSWER_REVISED)": "aceitas (ANSWER_REVISED)",
    "withheld (DO_NOT_ANSWER)": "retidas (DO_NOT_ANSWER)",
    "error (ERROR)": "erro (ERROR)",
    "flagged items": "itens sinalizados",
    "mean rewrites of accepted items": "média de reescritas dos aceitos",
    "mean rewrites of withheld items": "média de reescritas dos retidos",
    "Flagged items": "Itens sinalizados",
    # withheld
    "reason": "motivo",
    "the rewriter could not answer from the context": "o reescritor não conseguiu responder com o contexto",
    "the decider withheld the answer": "o decisor reteve a resposta",
    "the rewrite cap was reached": "o limite de reescritas foi atingido",
    "the cap was reached with a rewrite that breaks the policy": (
        "o limite foi atingido com uma reescrita que viola a política"
    ),
    "Withheld answers by reason": "Respostas retidas por motivo",
    "Nothing was withheld.": "Nenhuma resposta foi retida.",
    # policy
    "Deterministic checks on every original answer (before any model) and every rewrite "
    "(after the rewriter); a rewrite that breaks the policy is never accepted.": (
        "Verificações determinísticas em cada resposta original (antes de qualquer modelo) e em "
        "cada reescrita (depois do reescritor); uma reescrita que viola a política nunca é aceita."
    ),
    "rule": "regra",
    "originals": "originais",
    "rewrites": "reescritas",
    "No policy violation was found.": "Nenhuma violação de política foi encontrada.",
    "Policy violations by rule": "Violações de política por regra",
    "violations": "violações",
    # groups
    "Labels of one intent or category in Portuguese and Spanish are merged ({n} mappings; "
    "shown as 'pt / es'); the {top} largest groups with at least {min_n} items are shown, "
    "the rest is folded into '{other}'.": (
        "Rótulos de uma mesma intenção ou categoria em português e espanhol são unidos "
        "({n} mapeamentos; exibidos como 'pt / es'); os {top} maiores grupos com pelo menos "
        "{min_n} itens são exibidos, o restante vai para '{other}'."
    ),
    "other": "outros",
    "locale": "idioma",
    "intent": "intenção",
    "category": "categoria",
    "group": "grupo",
    "Accuracy by {name}": "Acurácia por {name}",
    # score change
    "Final minus original score (semantic + contextual, out of 10) of each accepted rewrite.": (
        "Nota final menos a original (semântico + contextual, de 10) de cada reescrita aceita."
    ),
    "improved": "melhorou",
    "unchanged": "igual",
    "worse": "piorou",
    "mean": "média",
    "median": "mediana",
    "Final − original score (out of 10)": "Nota final − original (de 10)",
    "score change": "variação da nota",
    # human review
    "Verdicts of people on the review queue (`colmeia moderate review`); a verdict on an "
    "answer that was moderated again since is stale and not counted.": (
        "Veredictos de pessoas na fila de revisão (`colmeia moderate review`); um veredicto "
        "sobre uma resposta moderada de novo depois dele está desatualizado e não conta."
    ),
    "accept": "aceitar",
    "edit": "editar",
    "reject": "rejeitar",
    "reviewed": "revisados",
    "stale": "desatualizados",
    "agreement (accepted)": "concordância (aceitos)",
    "accepted or edited": "aceitos ou editados",
    "Human verdicts by outcome": "Veredictos humanos por desfecho",
    "No verdicts yet.": "Nenhum veredicto ainda.",
    # latency
    "Model call latency per role (seconds, including retries) and items per minute of each run.": (
        "Latência das chamadas ao modelo por papel (segundos, com novas tentativas) e itens por "
        "minuto de cada execução."
    ),
    "calls": "chamadas",
    "Latency per role (s)": "Latência por papel (s)",
    "seconds": "segundos",
    # cost
    "Per item over the {n} moderated items ({invalid} invalid input records are left out, "
    "so they do not dilute the figures). Cost uses each role's price ({source}).": (
        "Por item, sobre os {n} itens moderados ({invalid} registros de entrada inválidos "
        "ficam de fora, para não diluir os números). O custo usa o preço de cada papel ({source})."
    ),
    "prices recorded at run time": "preços registrados na execução",
    "prices of the given config": "preços da configuração informada",
    "figure": "medida",
    "prompt tokens": "tokens de prompt",
    "completion tokens": "tokens de resposta",
    "cost": "custo",
    "prompt tokens / item": "tokens de prompt / item",
    "completion tokens / item": "tokens de resposta / item",
    "cost / item": "custo / item",
    "Tokens per item, by role": "Tokens por item, por papel",
    "tokens": "tokens",
    # not evaluated
    "Every item was evaluated.": "Todos os itens foram avaliados.",
    "key": "chave",
    "no result line (run not finished?)": "sem linha de resultado (execução não terminou?)",
    "invalid input": "entrada inválida",
    "no label (correct is missing)": "sem rótulo (correct ausente)",
    "not in the gold inputs": "fora das entradas rotuladas",
    # compare
    "Same labelled inputs, two results files. Differences per item list the items whose "
    "outcome differs, with the label.": (
        "Mesmas entradas rotuladas, dois arquivos de resultados. As diferenças por item "
        "listam os itens cujo desfecho difere, com o rótulo."
    ),
    "metric": "métrica",
    "{a} outcome \\ {b} outcome": "desfecho {a} \\ desfecho {b}",
    "Outcomes of {a} (rows) and {b} (columns)": "Desfechos de {a} (linhas) e {b} (colunas)",
    "items whose outcome differs": "itens com desfecho diferente",
    "first review right in {a} only": "primeira revisão certa só em {a}",
    "first review right in {b} only": "primeira revisão certa só em {b}",
    "question": "pergunta",
    "calls / item": "chamadas / item",
    "share kept": "proporção mantida",
    "share revised": "proporção reescrita",
    "share withheld": "proporção retida",
    "share ERROR": "proporção ERROR",
    "mean latency per call (s)": "latência média por chamada (s)",
    "First-review metrics": "Métricas da primeira revisão",
    "Outcome shares": "Proporções de desfechos",
    "No item differs.": "Nenhum item difere.",
    "(first {n} of {total})": "(primeiros {n} de {total})",
    "models": "modelos",
}


def translator(language: str) -> Callable[..., str]:
    """``t("text", **values)``: the text in ``language`` with ``{values}`` filled in."""
    table = PT_BR if language == "pt-BR" else {}

    def t(text: str, **values: object) -> str:
        out = table.get(text, text)
        return out.format(**values) if values else out

    return t
