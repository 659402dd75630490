"""The web UI's words in Portuguese (default) and English."""

from __future__ import annotations

from typing import Literal

__all__ = ["LANGS", "Lang", "translate"]

Lang = Literal["pt", "en"]
LANGS: tuple[Lang, ...] = ("pt", "en")

_T: dict[str, tuple[str, str]] = {
    # key: (pt, en)
    "app": ("colmeia", "colmeia"),
    "skip": ("Pular para o conteúdo", "Skip to content"),
    "nav.chat": ("Assistente", "Assistant"),
    "nav.search": ("Busca e documentos", "Search and documents"),
    "nav.moderation": ("Moderação", "Moderation"),
    "nav.reviews": ("Revisões de literatura", "Literature reviews"),
    "nav.approvals": ("Aprovações", "Approvals"),
    "nav.logout": ("Sair", "Sign out"),
    "lang.switch": ("English", "Português"),
    "simulated.banner": (
        "Modelo simulado: as respostas marcadas como simuladas são texto de exemplo, não de um "
        "modelo real.",
        "Simulated model: answers marked as simulated are placeholder text, not a real model's.",
    ),
    "simulated.tag": ("simulado", "simulated"),
    "simulated.calls": (
        "chamadas ao modelo vieram do modelo simulado (texto de exemplo)",
        "model calls came from the simulated model (placeholder text)",
    ),
    "login.title": ("Entrar", "Sign in"),
    "login.key": ("Chave de API", "API key"),
    "login.help": (
        "Crie uma chave com: colmeia keys create --tenant NOME --name VOCÊ",
        "Create a key with: colmeia keys create --tenant NAME --name YOU",
    ),
    "login.submit": ("Entrar", "Sign in"),
    "login.bad": ("Chave desconhecida ou revogada.", "Unknown or revoked key."),
    "tenant": ("Organização", "Tenant"),
    "search.title": ("Busca nos documentos", "Search the documents"),
    "search.query": ("O que procura?", "What are you looking for?"),
    "search.collection": ("Coleção", "Collection"),
    "search.all": ("todas", "all"),
    "search.submit": ("Buscar", "Search"),
    "search.none": ("Nada encontrado para", "Nothing found for"),
    "search.results": ("resultados para", "results for"),
    "upload.title": ("Enviar documentos", "Upload documents"),
    "upload.files": (
        "Arquivos (PDF, DOCX, HTML, Markdown, texto, CSV)",
        "Files (PDF, DOCX, HTML, Markdown, text, CSV)",
    ),
    "upload.collection": ("Coleção de destino", "Target collection"),
    "upload.submit": ("Enviar e indexar", "Upload and index"),
    "collections.title": ("Coleções", "Collections"),
    "collections.none": (
        "Nenhuma coleção ainda: envie documentos.",
        "No collections yet: upload documents.",
    ),
    "collections.documents": ("documentos", "documents"),
    "collections.chunks": ("trechos", "passages"),
    "job.status": ("Situação", "Status"),
    "job.queued": ("na fila", "queued"),
    "job.running": ("em andamento", "running"),
    "job.succeeded": ("concluído", "finished"),
    "job.failed": ("falhou", "failed"),
    "job.cancelled": ("cancelado", "cancelled"),
    "job.files": ("arquivos", "files"),
    "job.added": ("adicionados", "added"),
    "job.updated": ("atualizados", "updated"),
    "job.unchanged": ("sem mudança", "unchanged"),
    "job.errors": ("não indexados", "not indexed"),
    "passage.title": ("Trecho citado", "Cited passage"),
    "passage.close": ("Fechar", "Close"),
    "passage.open": ("abrir trecho", "open passage"),
    "moderation.title": ("Moderação de respostas", "Answer moderation"),
    "moderation.upload": ("Lote de registros (JSON ou JSONL)", "Batch of records (JSON or JSONL)"),
    "moderation.submit": ("Moderar lote", "Moderate batch"),
    "moderation.jobs": ("Lotes", "Batches"),
    "moderation.none": ("Nenhum lote ainda.", "No batches yet."),
    "moderation.progress": ("Progresso", "Progress"),
    "moderation.report": ("Relatório", "Report"),
    "moderation.results": ("Resultados", "Results"),
    "moderation.review": ("Fila de revisão", "Review queue"),
    "moderation.open": ("abrir", "open"),
    "moderation.record": ("Registro", "Record"),
    "moderation.outcome": ("Decisão", "Outcome"),
    "moderation.final": ("Resposta final", "Final answer"),
    "moderation.download": ("Baixar resultados (JSONL)", "Download results (JSONL)"),
    "chat.title": ("Assistente institucional", "Institutional assistant"),
    "chat.new": ("Nova conversa", "New conversation"),
    "chat.threads": ("Conversas", "Conversations"),
    "chat.message": ("Sua pergunta", "Your question"),
    "chat.send": ("Enviar", "Send"),
    "chat.web": (
        "Permitir pesquisa na internet (pede aprovação antes)",
        "Allow searching the internet (asks for approval first)",
    ),
    "chat.sources": ("Fontes", "Sources"),
    "chat.waiting": (
        "Aguardando uma pessoa: veja Aprovações",
        "Waiting for a person: see Approvals",
    ),
    "chat.handoff": ("encaminhado para", "handed over to"),
    "chat.tool": ("ferramenta", "tool"),
    "chat.collection": ("Coleção de documentos oficiais", "Collection of official documents"),
    "approvals.title": ("Aprovações e esclarecimentos", "Approvals and clarifications"),
    "approvals.none": ("Nada aguardando.", "Nothing waiting."),
    "approvals.approve": ("Aprovar", "Approve"),
    "approvals.reject": ("Recusar", "Reject"),
    "approvals.answer": ("Resposta", "Answer"),
    "approvals.send": ("Responder", "Send answer"),
    "approvals.tool": ("Ferramenta", "Tool"),
    "approvals.arguments": ("Argumentos", "Arguments"),
    "approvals.done": ("Retomado", "Resumed"),
    "reviews.title": ("Revisões de literatura", "Literature reviews"),
    "reviews.library": (
        "Importar bibliografia (RIS, BibTeX ou CSV, e PDFs)",
        "Import a bibliography (RIS, BibTeX or CSV, and PDFs)",
    ),
    "reviews.import": ("Importar", "Import"),
    "reviews.question": ("Pergunta da revisão", "Review question"),
    "reviews.collection": ("Coleção de obras", "Collection of works"),
    "reviews.top": ("Quantas obras", "How many works"),
    "reviews.start": ("Iniciar revisão", "Start review"),
    "reviews.list": ("Revisões", "Reviews"),
    "reviews.none": ("Nenhuma revisão ainda.", "No reviews yet."),
    "reviews.work": ("Obra", "Work"),
    "reviews.year": ("Ano", "Year"),
    "reviews.relevance": ("Relevância", "Relevance"),
    "reviews.objectives": ("Objetivos", "Objectives"),
    "reviews.screening": ("Triagem", "Screening"),
    "reviews.export": ("Exportar", "Export"),
    "reviews.extractive": (
        "Sem modelo de linguagem: campos extraídos dos próprios trechos, com citação.",
        "No language model: fields extracted from the passages themselves, cited.",
    ),
    "review.original": ("Resposta original", "Original answer"),
    "review.proposed": ("Proposta do sistema", "System's proposal"),
    "review.accept": ("Aceitar", "Accept"),
    "review.reject": ("Recusar", "Reject"),
    "review.verdict": ("Veredito", "Verdict"),
    "review.none": (
        "Nada para revisar: o sistema não mudou nem reteve respostas.",
        "Nothing to review: the system changed or withheld no answer.",
    ),
    "review.agreement": ("Concordância", "Agreement"),
    "nav.cases": ("Processos", "Cases"),
    "cases.title": ("Processos e expedientes", "Processes and expedientes"),
    "cases.lookup": ("Consultar um caso", "Look up a case"),
    "cases.number": (
        "Número do processo ou expediente (TC/XXXXXX/AAAA ou EXP-AAAA-XXXXX)",
        "Process or expediente number (TC/XXXXXX/YYYY or EXP-YYYY-XXXXX)",
    ),
    "cases.submit": ("Consultar", "Look up"),
    "cases.list": ("Casos no cadastro", "Cases in the registry"),
    "cases.search": ("Buscar no cadastro", "Search the registry"),
    "cases.none": (
        "Nenhum caso no cadastro: um administrador importa os casos (POST /v1/registry/import).",
        "No case in the registry: an admin imports them (POST /v1/registry/import).",
    ),
    "cases.of": ("de", "of"),
    "cases.where": ("Onde está", "Where it is"),
    "cases.since": ("desde", "since"),
    "cases.days": ("dias", "days"),
    "cases.status": ("Situação", "Status"),
    "cases.rapporteur": ("Relator", "Rapporteur"),
    "cases.unit": ("Unidade", "Unit"),
    "cases.date": ("Data", "Date"),
    "cases.subject": ("Assunto", "Subject"),
    "cases.parties": ("Partes", "Parties"),
    "cases.timeline": ("Movimentações", "Movements"),
    "cases.from": ("De", "From"),
    "cases.to": ("Para", "To"),
    "cases.what": ("O quê", "What"),
    "cases.number_col": ("Número", "Number"),
    "when": ("Quando", "When"),
    "error": ("Erro", "Error"),
    "no_model": (
        "Nenhum modelo de linguagem configurado: defina COLMEIA_LLM_BASE_URL ou rode "
        "`colmeia serve --simulated`.",
        "No language model configured: set COLMEIA_LLM_BASE_URL or run "
        "`colmeia serve --simulated`.",
    ),
}


def translate(key: str, lang: Lang) -> str:
    """The text of ``key`` in ``lang`` (the key itself when missing, so gaps show)."""
    pair = _T.get(key)
    if pair is None:
        return key
    return pair[0] if lang == "pt" else pair[1]
