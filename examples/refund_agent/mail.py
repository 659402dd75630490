"""The ``send_email`` tool, behind approval: a message is sent only when the approver says yes,
only to the address the order has, and "sending" writes it to an outbox folder (``sent/``; a
message not approved goes to ``held/``). No mail server is ever contacted: a deployment would
replace :meth:`Outbox.deliver` with its own transport.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from colmeia.errors import ToolError
from colmeia.tools import Tool


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What a person is asked to approve: a refund payment or an e-mail to a customer."""

    kind: str  # "refund" or "email"
    summary: str


Approver = Callable[[ApprovalRequest], bool]


def approve_all(request: ApprovalRequest) -> bool:
    return True


def approve_none(request: ApprovalRequest) -> bool:
    return False


class Outbox:
    """A folder of ``.eml`` files: ``sent/`` (approved) and ``held/`` (waiting for a person)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _write(self, sub: str, message: EmailMessage) -> Path:
        where = self.folder / sub
        where.mkdir(parents=True, exist_ok=True)
        path = where / f"{len(list(where.glob('*.eml'))) + 1:04d}.eml"
        path.write_bytes(bytes(message))
        return path

    def deliver(self, message: EmailMessage) -> Path:
        return self._write("sent", message)

    def hold(self, message: EmailMessage) -> Path:
        return self._write("held", message)

    def sent(self) -> list[EmailMessage]:
        from email import message_from_bytes, policy

        return [
            message_from_bytes(p.read_bytes(), policy=policy.default)
            for p in sorted((self.folder / "sent").glob("*.eml"))
        ]


def email_tool(outbox: Outbox, approver: Approver, allowed_to: Callable[[], str | None]) -> Tool:
    """``send_email``: sends only to ``allowed_to()`` (the current order's address) and only
    when ``approver`` approves; otherwise the message is held and the tool says why."""

    def send_email(to: str, subject: str, body: str) -> str:
        """Send an e-mail to the customer of the order being handled.

        Args:
            to: The customer's e-mail address, as lookup_order gives it.
            subject: The subject line.
            body: The message, in Portuguese.
        """
        expected = allowed_to()
        if expected is None:
            raise ToolError("recipient_from_order: the order has no customer e-mail on record")
        if to.strip().lower() != expected.lower():
            raise ToolError(
                f"recipient_from_order: {to!r} is not the address of the order's customer; "
                f"write to {expected}"
            )
        message = EmailMessage()
        message["To"] = expected
        message["From"] = "atendimento@loja.example"
        message["Subject"] = subject
        message.set_content(body)
        if not approver(ApprovalRequest("email", f"to {expected}: {subject}")):
            path = outbox.hold(message)
            return f"held for approval ({path.name}): not sent"
        path = outbox.deliver(message)
        return f"sent to {expected} ({path.name})"

    return Tool.from_function(send_email, tags=("email",))
