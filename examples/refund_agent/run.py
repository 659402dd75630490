"""Run the refund agent: ``python examples/refund_agent/run.py [--demo] [request ...]``.

Without ``--demo`` it uses the model in ``COLMEIA_LLM_BASE_URL``/``COLMEIA_LLM_MODEL`` (a real
server, or ``colmeia sim serve``). With ``--demo`` a scripted model is served in-process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `examples.refund_agent` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from examples._endpoint import endpoint
from examples.refund_agent.agent import RefundAgent, RefundOutcome
from examples.refund_agent.demo_model import (
    MISBEHAVE_REQUESTS,
    SAMPLE_REQUESTS,
    demo_model,
    misbehaving_model,
)
from examples.refund_agent.mail import (
    ApprovalRequest,
    Approver,
    Outbox,
    approve_all,
    approve_none,
)
from examples.refund_agent.store import create_database
from rich.console import Console
from rich.markup import escape

from colmeia.agents import Step
from colmeia.config import get_settings
from colmeia.llm import OpenAIChatModel

console = Console()


def _show(step: Step) -> None:
    phase = step.meta.get("phase", "")
    what = f"{step.tool}({json.dumps(step.input, ensure_ascii=False)})" if step.tool else step.kind
    console.print(f"  [dim]{phase:>10}[/] {escape(what)}")
    if step.observation:
        console.print(f"  {'':>10} → {escape(step.observation[:160])}")


def ask_on_terminal(request: ApprovalRequest) -> bool:
    """The approver when a person is at the terminal: y/N for each refund and e-mail."""
    answer = console.input(f"[bold]approve {request.kind}[/] {escape(request.summary)}? [y/N] ")
    return answer.strip().lower() in ("y", "yes", "s", "sim")


async def handle_all(
    base_url: str,
    model_name: str,
    requests: list[str],
    db: Path,
    live: bool,
    outbox: Path,
    approver: Approver,
    deadline: float = 180.0,
) -> list[RefundOutcome]:
    model = OpenAIChatModel.from_settings(get_settings().llm, base_url=base_url, model=model_name)
    agent = RefundAgent(model, db, outbox=Outbox(outbox), approver=approver, deadline=deadline)
    outcomes = []
    try:
        for request in requests:
            if live:
                console.rule(request)
            outcome = await agent.handle(request, on_step=_show if live else None)
            outcomes.append(outcome)
            if live:
                d = outcome.decision
                colour = {"approve": "green", "deny": "red", "escalate": "yellow"}[d.decision]
                console.print(
                    f"[bold {colour}]{d.decision}[/] R$ {d.refund_amount:.2f} · confidence "
                    f"{d.confidence:.2f}{' · reviewed by reflection' if outcome.reflected else ''}"
                )
                # A rule broken again after the model was told is said once.
                for v in dict.fromkeys(map(str, outcome.violations)):
                    console.print(f"  [yellow]guardrail caught[/] {escape(v)}")
                if d.decision == "escalate":
                    # Why a person must look at it: the deadline, a broken rule, no approval…
                    for reason in d.reasons:
                        console.print(f"  [yellow]reason[/] {escape(reason)}")
                console.print(f"  {escape(d.customer_reply)}")
                if outcome.email:
                    console.print(f"  [dim]e-mail: {escape(outcome.email)}[/]")
    finally:
        await model.aclose()
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Refund-request agent (colmeia example).")
    parser.add_argument("requests", nargs="*", help="Customer messages (default: four samples).")
    parser.add_argument("--demo", action="store_true", help="Use a scripted model served locally.")
    parser.add_argument(
        "--misbehave",
        action="store_true",
        help="Use a scripted model that approves whatever it is asked (over the amount paid, "
        "outside the window, against the policy's conditions, an unknown order): every "
        "guardrail that catches it is printed.",
    )
    parser.add_argument(
        "--deadline",
        type=float,
        default=180.0,
        help="Seconds the agent may spend gathering the facts of one request before the case "
        "is escalated (default 180).",
    )
    parser.add_argument("--db", type=Path, help="SQLite file to create/use (default: a temp file).")
    parser.add_argument("--json", action="store_true", help="Print one JSON line per request.")
    parser.add_argument(
        "--outbox", type=Path, help="Folder for the e-mails (sent/, held/; default: a temp dir)."
    )
    parser.add_argument(
        "--approve",
        choices=["ask", "all", "none"],
        default=None,
        help="Who approves large refunds and e-mails: ask on the terminal (default when "
        "interactive), all, or none (large refunds escalated, e-mails held).",
    )
    args = parser.parse_args(argv)
    if args.deadline <= 0:
        parser.error(f"--deadline must be a positive number of seconds, not {args.deadline:g}")
    requests = args.requests or (MISBEHAVE_REQUESTS if args.misbehave else SAMPLE_REQUESTS)
    mode = args.approve or ("ask" if sys.stdin.isatty() and not args.json else "none")
    approver = {"ask": ask_on_terminal, "all": approve_all, "none": approve_none}[mode]
    with tempfile.TemporaryDirectory() as tmp:
        db = create_database(args.db or Path(tmp) / "refunds.db")
        outbox = args.outbox or Path(tmp) / "outbox"
        # --demo / --misbehave serve a scripted model on 127.0.0.1; otherwise COLMEIA_LLM_*.
        scripted = misbehaving_model if args.misbehave else demo_model
        with endpoint(args.demo or args.misbehave, scripted) as (base_url, model_name):
            outcomes = asyncio.run(
                handle_all(
                    base_url,
                    model_name,
                    requests,
                    db,
                    not args.json,
                    outbox,
                    approver,
                    args.deadline,
                )
            )
    if args.json:
        for o in outcomes:
            line = {
                "request": o.trace.task,
                "status": o.trace.status.value,
                "reflected": o.reflected,
                **o.decision.model_dump(),
                "guardrails": [v.rule for v in o.violations],
                "email": o.email,
                "steps": len(o.trace.steps),
            }
            print(json.dumps(line, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
