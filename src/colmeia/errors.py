"""The one error tree of colmeia.

Every error colmeia raises on purpose is a :class:`ColmeiaError`. Usage and configuration
mistakes (fix your command or settings) are kept apart from failures during a run (a model
that did not answer, output that stayed invalid, a limit that was reached)::

    ColmeiaError
    ├── ConfigurationError        settings or arguments are wrong; nothing was attempted
    │   └── UnsafeTargetError     a URL/address that colmeia refuses to contact
    ├── InputError                a file, record or query cannot be used as given
    │   ├── DocumentError         a document could not be read or ingested
    │   ├── RecordError           a record does not fit the expected format
    │   └── QueryError            a search query is empty, huge or meaningless
    └── RunError                  something failed while working
        ├── ModelError            the language model did not give a usable answer
        │   ├── ModelUnreachableError   no connection / DNS / refused
        │   ├── ModelTimeoutError       the per-call deadline passed
        │   ├── ModelHTTPError          the server answered with an error status
        │   │   ├── ModelContextLengthError   the prompt does not fit the context window
        │   │   └── ModelUnsupportedError     the server refuses a feature (tools, formats)
        │   ├── ModelProtocolError      the answer broke the wire format (bad stream line)
        │   └── ModelOutputError        output stayed invalid after every repair attempt
        ├── ToolError             a tool failed or was called with invalid arguments
        ├── StoreError            the database could not be read or written
        │   └── MissingStoreError       a command that only reads found no store there
        └── LimitReachedError     a hard cap (steps, rewrites, budget) was reached

Messages say what happened and what to do about it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the annotation only: errors.py imports nothing from colmeia at run time
    from colmeia.usage import Usage

__all__ = [
    "ColmeiaError",
    "ConfigurationError",
    "DocumentError",
    "InputError",
    "LimitReachedError",
    "MissingStoreError",
    "ModelContextLengthError",
    "ModelError",
    "ModelHTTPError",
    "ModelOutputError",
    "ModelProtocolError",
    "ModelTimeoutError",
    "ModelUnreachableError",
    "ModelUnsupportedError",
    "QueryError",
    "RecordError",
    "RunError",
    "StoreError",
    "ToolError",
    "UnsafeTargetError",
]


class ColmeiaError(Exception):
    """Root of every error colmeia raises on purpose."""


class ConfigurationError(ColmeiaError):
    """Settings or arguments are wrong; nothing was attempted."""


class UnsafeTargetError(ConfigurationError):
    """A URL or address colmeia refuses to contact (checked before any connection)."""


class InputError(ColmeiaError):
    """A file, record or query cannot be used as given."""


class DocumentError(InputError):
    """A document could not be read or ingested."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class RecordError(InputError):
    """A record does not fit the expected format."""

    def __init__(self, record: str, reason: str) -> None:
        self.record = record
        self.reason = reason
        super().__init__(f"{record}: {reason}")


class QueryError(InputError):
    """A search query is empty, huge or has nothing searchable in it."""


class RunError(ColmeiaError):
    """Something failed while working."""


class ModelError(RunError):
    """The language model did not give a usable answer.

    ``usage`` is what the failed call cost before it gave up (requests, retries, repairs,
    tokens of the answers that came back), set by the model client that raised it; ``None``
    when the error did not come from a model call.
    """

    def __init__(self, message: str, *, model: str = "", base_url: str = "") -> None:
        self.model = model
        self.base_url = base_url
        self.usage: Usage | None = None
        super().__init__(message)


class ModelUnreachableError(ModelError):
    """The model server could not be reached at all."""


class ModelTimeoutError(ModelError):
    """The per-call deadline passed before a usable answer arrived."""


class ModelHTTPError(ModelError):
    """The model server answered with an error status that retrying did not fix."""

    def __init__(self, message: str, *, status: int, model: str = "", base_url: str = "") -> None:
        self.status = status
        super().__init__(message, model=model, base_url=base_url)


class ModelContextLengthError(ModelHTTPError):
    """The request does not fit the model's context window (prompt plus room to answer)."""

    def __init__(
        self,
        message: str,
        *,
        status: int,
        prompt_tokens: int | None = None,
        context_tokens: int | None = None,
        model: str = "",
        base_url: str = "",
    ) -> None:
        self.prompt_tokens = prompt_tokens
        self.context_tokens = context_tokens
        super().__init__(message, status=status, model=model, base_url=base_url)


class ModelUnsupportedError(ModelHTTPError):
    """The server refuses a feature of the request (``feature``: ``tools``, ``json_schema``…),
    as its error message says, and no other way of asking for it is left."""

    def __init__(
        self, message: str, *, status: int, feature: str, model: str = "", base_url: str = ""
    ) -> None:
        self.feature = feature
        super().__init__(message, status=status, model=model, base_url=base_url)


class ModelProtocolError(ModelError):
    """The server's answer broke the wire format (a streamed line that is not JSON, …)."""


class ModelOutputError(ModelError):
    """The model's output stayed invalid (no JSON, wrong schema, no tool call) after repairs."""

    def __init__(
        self, message: str, *, last_output: str = "", model: str = "", base_url: str = ""
    ) -> None:
        self.last_output = last_output
        super().__init__(message, model=model, base_url=base_url)


class ToolError(RunError):
    """A tool failed or was called with arguments it cannot accept."""


class StoreError(RunError):
    """The database could not be read or written."""


class MissingStoreError(StoreError):
    """There is no store (or no colmeia store) where a command that only reads looked."""


class LimitReachedError(RunError):
    """A hard cap (steps, rewrites, budget) was reached."""
