"""``colmeia assistant chat | ask | resume | threads | history | delete``."""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Awaitable, Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

import orjson
import typer

from colmeia.errors import ColmeiaError

if TYPE_CHECKING:
    from rich.console import Console

    from colmeia.apps.assistant.runtime import AssistantOptions
    from colmeia.apps.assistant.session import Assistant, TurnResult

app = typer.Typer(help="The institutional assistant: cases, laws, approvals.", no_args_is_help=True)
T = TypeVar("T")


# Rich is imported when something is printed through it: `ask --json` writes its line without
# it (~0.05 s of an offline CLI turn's start-up).
@cache
def _out() -> Console:
    from rich.console import Console

    return Console()


@cache
def _err() -> Console:
    from rich.console import Console

    return Console(stderr=True)


def escape(text: str) -> str:
    """``text`` with Rich's markup escaped (rich.markup.escape, imported when used)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


_THREAD = typer.Option(None, "--thread", "-t", help="Conversation id (new one when omitted).")
_STORE = typer.Option(None, "--store", help="Document store (default: COLMEIA_STORE).")
_REGISTRY = typer.Option(None, "--registry", help="Case registry URL (sqlite:///… or http://…).")
_CHECKPOINTS = typer.Option(
    None, "--checkpoints", help="Where threads are kept: sqlite:///… or postgresql://…"
)
_COLLECTION = typer.Option(None, "--collection", "-c", help="Collection of official documents.")
_OFFLINE = typer.Option(False, "--offline", help="Route by rules even if a model is configured.")
_JSON = typer.Option(False, "--json", help="Print the turn as one JSON line.")


def _options(
    store: str | None,
    registry: str | None,
    checkpoints: str | None,
    collection: str | None,
    offline: bool,
) -> AssistantOptions:
    from colmeia.apps.assistant.runtime import AssistantOptions

    return AssistantOptions(store, registry, checkpoints, collection, offline)


def _run(options: AssistantOptions, work: Callable[[Assistant], Awaitable[T]]) -> T:
    from colmeia.apps.assistant.runtime import assistant_from_settings

    async def main() -> T:
        async with assistant_from_settings(options) as assistant:
            return await work(assistant)

    return _reported(main())


def _reported(work: Awaitable[T]) -> T:
    async def main() -> T:
        return await work

    try:
        return asyncio.run(main())
    except ColmeiaError as exc:
        _err().print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None


def _flags(web: bool, system: bool, rag: bool) -> dict[str, bool]:
    return {"enable_web_search": web, "enable_system_search": system, "enable_rag_processing": rag}


def _show(result: TurnResult, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(orjson.dumps(result.as_dict(), default=str).decode() + "\n")
        return
    for h in result.handoffs:
        _handoff_line(h)
    for t in result.tools:
        _tool_line(t)
    _answer(result)


def _handoff_line(h: dict[str, Any], out: Callable[[str], None] | None = None) -> None:
    why = h.get("task") or h.get("reason") or ""
    (out or _print)(
        f"[magenta]↪ {h.get('from')} → {h.get('to')}[/magenta] [dim]{escape(str(why))[:120]}[/dim]"
    )


def _tool_line(t: dict[str, Any], out: Callable[[str], None] | None = None) -> None:
    extra = t.get("refused") or t.get("decision") or ""
    args = orjson.dumps(t.get("arguments", {})).decode()
    (out or _print)(
        f"[cyan]· {t.get('agent')}: {t.get('tool')}[/cyan] [dim]{escape(args)[:120]} "
        f"{escape(str(extra))}[/dim]"
    )


def _print(markup: str) -> None:
    _out().print(markup, highlight=False)


# Why streamed text was replaced, as the chat says it (see colmeia.graphs.streaming).
_REPLACED = {
    "registry_check": "a redação trazia dados que o cadastro não confirma; vale o registro",
    "withheld": "resposta retida pela proteção contra instruções maliciosas nos documentos",
    "guarded_route": "a pergunta vai para o agente certo",
    "tool_call": "o agente foi consultar",
    "retry": "nova tentativa",
    "model_error": "o modelo não respondeu",
    "no_citation_held": "nenhuma citação do modelo se confirmou; valem os trechos encontrados",
    "empty_answer": "o modelo não escreveu resposta; valem os trechos encontrados",
}


class _AnswerPrinter:
    """Shows an answer while its tokens arrive: a live region in a terminal (a replacement
    rewrites it), plain text otherwise (a replacement starts a marked new line)."""

    def __init__(self, out: Console) -> None:
        self.out = out
        self.text = ""
        self.live: Any = None
        self.mid_line = False

    def token(self, text: str) -> None:
        self.text += text
        if self.out.is_terminal:
            self._render()
        else:
            self.out.file.write(text)
            self.out.file.flush()
            self.mid_line = not text.endswith("\n")

    def replace(self, text: str, reason: str) -> None:
        self.text = text
        why = _REPLACED.get(reason)
        if self.out.is_terminal:
            if why and text:
                self.line(f"[dim]↺ {escape(why)}[/dim]")
            self._render()
            return
        self._end_line()
        if why or text:
            self.out.print(f"↺ ({why or 'versão final'})", highlight=False)
        if text:
            self.out.file.write(text)
            self.out.file.flush()
            self.mid_line = not text.endswith("\n")

    def line(self, markup: str) -> None:
        """A line about the turn (handoff, tool call) above the answer being written."""
        self._end_line()
        self.out.print(markup, highlight=False)

    def close(self) -> bool:
        """End the answer; whether any text was shown."""
        if self.live is not None:
            self.live.stop()
            self.live = None
        self._end_line()
        return bool(self.text)

    def _render(self) -> None:
        from rich.live import Live
        from rich.text import Text

        if self.live is None:
            self.live = Live(Text(self.text), console=self.out, auto_refresh=False)
            self.live.start()
        self.live.update(Text(self.text), refresh=True)

    def _end_line(self) -> None:
        if self.mid_line and self.live is None:
            self.out.file.write("\n")
            self.out.file.flush()
        self.mid_line = False


def _answer(result: TurnResult, *, streamed: bool = False) -> None:
    """The turn's outcome; with ``streamed`` the answer's text was already shown."""
    if result.status.startswith("waiting_"):
        kind = "aprovação" if result.waiting_for == "approval" else "sua resposta"
        _out().print(f"[yellow]⏸ aguardando {kind}[/yellow] (thread {result.thread_id})")
        _out().print(escape(result.answer), highlight=False)
        if result.waiting_for == "approval" and result.waiting:
            args = orjson.dumps(result.waiting.get("arguments", {})).decode()
            _out().print(f"[dim]{result.waiting.get('tool')} {escape(args)}[/dim]")
        return
    label = f"[bold green]{result.agent or 'assistente'}[/bold green]"
    if result.mode != "model":
        label += " [dim](sem modelo: roteamento por regras, resposta extrativa)[/dim]"
    elif result.usage.get("simulated"):
        label += " [dim](modelo simulado: texto de teste, não de um modelo real)[/dim]"
    if streamed:
        _out().print(f"[dim]—[/dim] {label}", highlight=False)
    else:
        _out().print(label)
        _out().print(escape(result.answer), highlight=False)
    if result.citations:
        # The passages in the order the evaluation counts them (answer_passages): the
        # ranking's own first, then the rest of the ranking, cited or only found.
        _out().print("[bold]Fontes[/bold]")
        from colmeia.eval.assistant import answer_passages

        for p in answer_passages(result.citations, result.sources):
            validity = p.get("validity", {}).get("status", "")
            flag = f" [yellow]({validity})[/yellow]" if validity not in ("", "in_force") else ""
            mark = (
                escape(f"[{p['passage']}]") if "passage" in p else "[dim](também encontrado)[/dim]"
            )
            _out().print(f"  {mark} {escape(p['label'])}{flag}", highlight=False)
    for note in result.notes:
        _out().print(f"[yellow]nota:[/yellow] {escape(note)}", highlight=False)
    if result.status not in ("answered",):
        _out().print(f"[red]status: {result.status}[/red]")


@app.command()
def ask(
    question: str = typer.Argument(..., help="The question."),
    thread: str | None = _THREAD,
    web: bool = typer.Option(False, "--web/--no-web", help="Allow web search (with approval)."),
    system: bool = typer.Option(True, "--system/--no-system", help="Allow case registry lookups."),
    rag: bool = typer.Option(True, "--rag/--no-rag", help="Allow answers from official documents."),
    store: str | None = _STORE,
    registry: str | None = _REGISTRY,
    checkpoints: str | None = _CHECKPOINTS,
    collection: str | None = _COLLECTION,
    offline: bool = _OFFLINE,
    as_json: bool = _JSON,
) -> None:
    """Ask one question in a thread (it may pause for an approval or a clarification)."""
    tid = thread or f"t-{uuid.uuid4().hex[:10]}"
    opts = _options(store, registry, checkpoints, collection, offline)
    from colmeia.apps.assistant.runtime import offline_ask

    flags = _flags(web, system, rag)
    # offline, most turns need no graph (and start without LangGraph); None: the graph's turn
    result = _reported(offline_ask(tid, question, flags, opts)) or _run(
        opts, lambda a: a.ask(tid, question, flags=flags)
    )
    _show(result, as_json)
    if result.status in ("error", "step_limit", "handoff_limit"):
        raise typer.Exit(1)


@app.command()
def resume(
    thread: str = typer.Option(..., "--thread", "-t", help="The paused thread."),
    approve: bool = typer.Option(False, "--approve", help="Approve the pending action."),
    reject: bool = typer.Option(False, "--reject", help="Reject the pending action."),
    edit: str | None = typer.Option(None, "--edit", help="Approve with these arguments (JSON)."),
    answer: str | None = typer.Option(None, "--answer", help="Answer the pending question."),
    reason: str = typer.Option("", "--reason", help="Why (kept with a rejection)."),
    store: str | None = _STORE,
    registry: str | None = _REGISTRY,
    checkpoints: str | None = _CHECKPOINTS,
    collection: str | None = _COLLECTION,
    offline: bool = _OFFLINE,
    as_json: bool = _JSON,
) -> None:
    """Resume a paused thread: --approve, --reject, --edit '{…}' or --answer "…"."""
    chosen = [x for x in (approve, reject, edit is not None, answer is not None) if x]
    if len(chosen) != 1:
        _err().print("[red]error:[/red] give exactly one of --approve, --reject, --edit, --answer")
        raise typer.Exit(2)
    value: Any
    if answer is not None:
        value = answer
    elif edit is not None:
        try:
            value = {"action": "edit", "arguments": orjson.loads(edit), "reason": reason}
        except orjson.JSONDecodeError:
            _err().print(
                '[red]error:[/red] --edit needs a JSON object, e.g. \'{"contact": "a@b.org"}\''
            )
            raise typer.Exit(2) from None
    else:
        value = {"action": "approve" if approve else "reject", "reason": reason}
    opts = _options(store, registry, checkpoints, collection, offline)
    result = _run(opts, lambda a: a.resume(thread, value))
    _show(result, as_json)


@app.command()
def threads(
    store: str | None = _STORE,
    registry: str | None = _REGISTRY,
    checkpoints: str | None = _CHECKPOINTS,
    collection: str | None = _COLLECTION,
    as_json: bool = _JSON,
) -> None:
    """List the conversation threads, most recent first."""
    opts = _options(store, registry, checkpoints, collection, True)
    found = _run(opts, lambda a: a.threads())
    if as_json:
        sys.stdout.write(orjson.dumps([t.as_dict() for t in found]).decode() + "\n")
        return
    for t in found:
        _out().print(f"{t.thread_id}  [dim]{t.updated_at}  {t.checkpoints} checkpoints[/dim]")


@app.command()
def history(
    thread: str = typer.Option(..., "--thread", "-t", help="The thread."),
    store: str | None = _STORE,
    registry: str | None = _REGISTRY,
    checkpoints: str | None = _CHECKPOINTS,
    collection: str | None = _COLLECTION,
    as_json: bool = _JSON,
) -> None:
    """Show a thread's conversation."""
    opts = _options(store, registry, checkpoints, collection, True)
    items = _run(opts, lambda a: a.history(thread))
    if as_json:
        sys.stdout.write(orjson.dumps(items).decode() + "\n")
        return
    for m in items:
        who = "você" if m["role"] == "user" else m.get("agent", "assistente")
        _out().print(f"[bold]{who}[/bold]: {escape(m['text'])}", highlight=False)


@app.command()
def delete(
    thread: str = typer.Option(..., "--thread", "-t", help="The thread to delete."),
    store: str | None = _STORE,
    registry: str | None = _REGISTRY,
    checkpoints: str | None = _CHECKPOINTS,
    collection: str | None = _COLLECTION,
) -> None:
    """Delete a thread and everything kept about it."""
    opts = _options(store, registry, checkpoints, collection, True)
    if not _run(opts, lambda a: a.delete(thread)):
        _err().print(f"[red]error:[/red] no thread {thread!r}")
        raise typer.Exit(1)
    _out().print(f"thread {thread} deleted")


@app.command()
def chat(
    thread: str | None = _THREAD,
    web: bool = typer.Option(False, "--web/--no-web", help="Allow web search (with approval)."),
    system: bool = typer.Option(True, "--system/--no-system", help="Allow case registry lookups."),
    rag: bool = typer.Option(True, "--rag/--no-rag", help="Allow answers from official documents."),
    store: str | None = _STORE,
    registry: str | None = _REGISTRY,
    checkpoints: str | None = _CHECKPOINTS,
    collection: str | None = _COLLECTION,
    offline: bool = _OFFLINE,
) -> None:
    """Talk to the assistant: the answer streams as it is written; handoffs, tool calls,
    approvals and citations show as they happen."""
    tid = thread or f"t-{uuid.uuid4().hex[:10]}"
    opts = _options(store, registry, checkpoints, collection, offline)
    flags = _flags(web, system, rag)

    async def turn(assistant: Assistant, payload: Any) -> TurnResult:
        result: TurnResult | None = None
        shown = _AnswerPrinter(_out())
        try:
            async for event in assistant.events(tid, payload):
                kind = event["type"]
                if kind == "token":
                    shown.token(event["text"])
                elif kind == "replace":
                    shown.replace(event["text"], event.get("reason", ""))
                elif kind == "handoff":
                    _handoff_line(event, shown.line)
                elif kind == "tool":
                    _tool_line(event, shown.line)
                elif kind == "result":
                    result = event["result"]
        finally:
            streamed = shown.close()
        assert result is not None
        _answer(result, streamed=streamed)
        return result

    async def loop(assistant: Assistant) -> None:
        _out().print(f"[dim]thread {tid} — /sair para terminar, /threads para listar[/dim]")
        pending = await assistant.pending(tid)
        while True:
            prompt = "> " if pending is None else _prompt_for(pending)
            try:
                line = await asyncio.to_thread(input, prompt)
            except (EOFError, KeyboardInterrupt):
                _out().print()
                return
            text = line.strip()
            if not text:
                continue
            if text in ("/sair", "/exit", "/quit"):
                return
            if text == "/threads":
                for t in await assistant.threads():
                    _out().print(f"{t.thread_id}  [dim]{t.updated_at}[/dim]")
                continue
            try:
                if pending is None:
                    payload: Any = assistant.make_input(text, flags)
                else:
                    payload = await assistant.resume_command(tid, _decision(pending, text))
                result = await turn(assistant, payload)
            except ColmeiaError as exc:
                _err().print(f"[red]error:[/red] {escape(str(exc))}")
                continue
            pending = result.waiting

    _run(opts, loop)


def _prompt_for(pending: dict[str, Any]) -> str:
    if pending.get("type") == "approval":
        return "aprovar? [s]im / [n]ão / JSON com novos argumentos > "
    return "sua resposta > "


def _decision(pending: dict[str, Any], text: str) -> Any:
    if pending.get("type") != "approval":
        return text
    low = text.lower()
    if low.startswith("{"):
        try:
            return {"action": "edit", "arguments": orjson.loads(text)}
        except orjson.JSONDecodeError:
            return {"action": "invalid"}
    if low in ("s", "sim", "y", "yes", "aprovar"):
        return {"action": "approve"}
    if low in ("n", "não", "nao", "no", "rejeitar"):
        return {"action": "reject"}
    return {"action": "invalid"}


def eval_assistant(
    which: str = typer.Option(
        "laws",
        "--set",
        help=(
            "laws (shipped laws, gold articles), lay-dev / lay-dev2 / lay-test / lay-test2 / lay-test3 (laws asked in lay "
            "words), faquad, conversations (multi-turn), the generated-dev / generated-test / "
            "generated-test2 conversations (colmeia.apps.assistant.turngen), independent / "
            "independent2 / independent3 (hand-written apart from the code, on an imported "
            "four-case registry), or independent4 / independent6 … independent10 (development) and "
            "independent5 / independent11 … independent22 (frozen), "
            "written blind to the code on registries of their own."
        ),
    ),
    data: str | None = typer.Option(
        None, "--data", help="The data folder (default: the repo's data/)."
    ),
    limit: int | None = typer.Option(
        None, "--limit", help="Only the first N questions (conversations)."
    ),
    conversations: str | None = typer.Option(
        None,
        "--conversations",
        help="A folder of conversations_*.json (default: the ones shipped with colmeia).",
    ),
    simulated: bool = typer.Option(
        False,
        "--simulated",
        help="Use a careful simulated model (measures model calls and tokens).",
    ),
    offline: bool = typer.Option(False, "--offline", help="Route by rules even if a model is set."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON line."),
) -> None:
    """Citation hit rate, gold-span containment, handoff accuracy, calls and tokens per answer."""
    from pathlib import Path

    from colmeia.apps.assistant.evaluation import evaluate
    from colmeia.cli.progress import Progress
    from colmeia.config import get_settings
    from colmeia.rag.index.embedders import default_embedder

    root = Path(data) if data else _data_dir(which)
    settings = get_settings()
    folder = Path(conversations) if conversations else None
    embedder = default_embedder(settings.embeddings)

    async def main(bar: Progress) -> Any:
        def tick(done: int, total: int) -> None:
            bar.update(done, total)

        if simulated:
            from colmeia.apps.assistant.simulated import assistant_responder
            from colmeia.llm import OpenAIChatModel
            from colmeia.sim.engine import SimulatedModel
            from colmeia.sim.server import SimServer

            with SimServer(SimulatedModel(responder=assistant_responder)) as srv:
                async with OpenAIChatModel(base_url=srv.base_url, model="sim") as model:
                    return await evaluate(
                        which,
                        root,
                        model,
                        limit=limit,
                        progress=tick,
                        mode="simulated",
                        conversations_dir=folder,
                        embedder=embedder,
                    )
        if settings.llm.base_url and not offline:
            from colmeia.llm import OpenAIChatModel

            async with OpenAIChatModel.from_settings(settings.llm) as model:
                return await evaluate(
                    which,
                    root,
                    model,
                    limit=limit,
                    progress=tick,
                    conversations_dir=folder,
                    embedder=embedder,
                )
        return await evaluate(
            which,
            root,
            None,
            limit=limit,
            progress=tick,
            conversations_dir=folder,
            embedder=embedder,
        )

    try:
        with Progress("eval assistant", unit="questions", console=_err(), disable=as_json) as bar:
            report = asyncio.run(main(bar))
    except ColmeiaError as exc:
        _err().print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    out = report.as_dict()
    if as_json:
        sys.stdout.write(orjson.dumps(out).decode() + "\n")
        return
    from rich.table import Table

    table = Table(title=f"assistant on {report.set} ({report.mode})")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in report.metrics.items():
        table.add_row(key, "-" if value is None else str(value))
    _out().print(table)
    for p in report.problems:
        _out().print(f"[yellow]skipped:[/yellow] {escape(p)}")
    for t in report.turns:
        if not t.passed:
            _out().print(
                f"[red]failed:[/red] {escape(t.conversation)} turn {t.turn} "
                f"({escape(t.user[:60])}): {escape('; '.join(t.failures))}",
                highlight=False,
            )


def _data_dir(which: str) -> Any:
    """The first data folder holding the laws and what the set ``which`` reads:
    ``COLMEIA_DATA_DIR`` (the larger optional data), else the repository's ``data/``. The
    optional folder holds no lay sets, so a lay set is read from the repository's."""
    import os
    from pathlib import Path

    from colmeia.apps.assistant.evaluation import QUESTION_FILES

    needs = ["laws/lexml"]
    if which in QUESTION_FILES:
        needs.append(f"assistant/{QUESTION_FILES[which]}")
    elif which == "faquad":
        needs.append("faquad/dataset.json")
    explicit = os.environ.get("COLMEIA_DATA_DIR")
    for candidate in ([Path(explicit)] if explicit else []) + [
        Path.cwd() / "data",
        Path(__file__).resolve().parents[3] / "data",
    ]:
        if all((candidate / need).exists() for need in needs):
            return candidate
    _err().print(
        "[red]error:[/red] the data folder was not found; pass --data (the repository's data/)"
    )
    raise typer.Exit(2)
