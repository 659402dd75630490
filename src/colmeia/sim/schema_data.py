"""Generate data that is valid for a JSON Schema, for the simulated model.

The simulated model answers structured-output requests and tool calls with data made from the
schema it was offered, so that load and robustness tests exercise real validation without a
real model. Generation is deterministic for a given :class:`random.Random`.

Supported: ``type`` (also as a list), ``enum``, ``const``, numeric bounds (``minimum``,
``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``, ``multipleOf``), string lengths and a few
``format`` values, arrays (``items``, ``prefixItems``, ``minItems``, ``maxItems``,
``uniqueItems``), objects (``properties``, ``required``, ``additionalProperties``,
``minProperties``), ``$ref`` into ``$defs``/``definitions``, ``anyOf``/``oneOf``/``allOf`` and
OpenAPI's ``nullable``. ``pattern`` is not honoured: strings are Portuguese-looking words.
"""

from __future__ import annotations

import math
import random
import unicodedata
from collections.abc import Callable
from typing import Any

__all__ = ["PORTUGUESE_WORDS", "generate", "portuguese_text"]

_WORDS = """
resposta cliente pedido entrega produto prazo informação atendimento qualidade garantia
troca pagamento cartão boleto frete loja avaliação conteúdo revisão texto documento artigo
parágrafo inciso lei resolução processo decisão tribunal recurso pesquisa estudo objetivo
conclusão método resultado análise dados sistema serviço claro correto completo adequado
simples rápido seguro novo bom importante necessário possível disponível oficial público
nacional sobre para com sem entre durante conforme segundo também ainda muito sempre hoje
agora aqui então porque quando onde como verificar enviar receber confirmar explicar
responder indicar citar
"""
PORTUGUESE_WORDS: tuple[str, ...] = tuple(_WORDS.split())

_MAX_DEPTH = 8
_OPTIONAL_PROBABILITY = 0.7
_NULL_PROBABILITY = 0.1


def portuguese_text(rng: random.Random, min_words: int = 4, max_words: int = 10) -> str:
    """A short Portuguese-looking sentence, capitalised and ending with a full stop."""
    n = rng.randint(min_words, max(min_words, max_words))
    words = [rng.choice(PORTUGUESE_WORDS) for _ in range(n)]
    sentence = " ".join(words)
    return sentence[0].upper() + sentence[1:] + "."


def generate(schema: Any, rng: random.Random, *, root: Any = None) -> Any:
    """Return a value valid for ``schema`` (a JSON Schema as parsed JSON).

    ``root`` is the document that ``$ref`` pointers resolve against; it defaults to ``schema``.
    """
    return _Generator(root if root is not None else schema, rng).value(schema, 0)


class _Generator:
    def __init__(self, root: Any, rng: random.Random) -> None:
        self.root = root
        self.rng = rng

    # -- schema plumbing ---------------------------------------------------------------------

    def resolve(self, schema: Any) -> dict[str, Any]:
        """Follow ``$ref`` and merge ``allOf`` into one flat schema dict."""
        if schema is True or schema is None:
            return {}
        if schema is False or not isinstance(schema, dict):
            return {}
        seen = 0
        while "$ref" in schema and seen < 32:
            target = self._pointer(str(schema["$ref"]))
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **rest} if rest else target
            seen += 1
        if "allOf" in schema:
            merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                merged = _merge(merged, self.resolve(part))
            schema = merged
        return dict(schema)

    def _pointer(self, ref: str) -> dict[str, Any]:
        if not ref.startswith("#"):
            return {}  # remote references cannot be followed offline
        node: Any = self.root
        for raw in ref[1:].split("/"):
            if not raw:
                continue
            key = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and key in node:
                node = node[key]
            elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
            else:
                return {}
        return node if isinstance(node, dict) else {}

    # -- values ------------------------------------------------------------------------------

    def value(self, raw: Any, depth: int) -> Any:
        schema = self.resolve(raw)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return self.rng.choice(list(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if schema.get(key):
                return self._choice(schema, key, depth)
        types = schema.get("type")
        if isinstance(types, list):
            options = [t for t in types if t != "null"] or ["null"]
            if "null" in types and (depth >= _MAX_DEPTH or self.rng.random() < _NULL_PROBABILITY):
                return None
            kind = self.rng.choice(options)
        elif isinstance(types, str):
            kind = types
        else:
            kind = _infer_type(schema)
        if schema.get("nullable") is True and self.rng.random() < _NULL_PROBABILITY:
            return None
        maker = _MAKERS.get(kind)
        if maker is None:
            return self.string(schema)
        return maker(self, schema, depth)

    def _choice(self, schema: dict[str, Any], key: str, depth: int) -> Any:
        base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        options = [_merge(base, self.resolve(o)) for o in schema[key]]
        non_null = [o for o in options if o.get("type") != "null"]
        has_null = len(non_null) < len(options)
        if has_null and (
            not non_null or depth >= _MAX_DEPTH or self.rng.random() < _NULL_PROBABILITY
        ):
            return None
        return self.value(self.rng.choice(non_null), depth + 1)

    def object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        props: dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        out: dict[str, Any] = {}
        for name, sub in props.items():
            keep = name in required or (
                depth < _MAX_DEPTH and self.rng.random() < _OPTIONAL_PROBABILITY
            )
            if keep:
                out[name] = self.value(sub, depth + 1)
        extra = schema.get("additionalProperties", not props)
        min_props = int(schema.get("minProperties", 0))
        max_props = schema.get("maxProperties")
        wanted = max(min_props - len(out), 0)
        if not props and extra is not False and depth < _MAX_DEPTH:
            wanted = max(wanted, self.rng.randint(1, 2))
        if max_props is not None:
            wanted = min(wanted, max(int(max_props) - len(out), 0))
        if extra is False:
            wanted = 0
        extra_schema = extra if isinstance(extra, dict) else {"type": "string"}
        attempts = 0
        while wanted > 0 and attempts < 100:
            attempts += 1
            key = self.rng.choice(PORTUGUESE_WORDS)
            if attempts > 50:
                key = f"{key}_{attempts}"
            if key in out:
                continue
            out[key] = self.value(extra_schema, depth + 1)
            wanted -= 1
        return out

    def array(self, schema: dict[str, Any], depth: int) -> list[Any]:
        prefix = list(schema.get("prefixItems") or ())
        items = schema.get("items", {})
        if isinstance(items, list):  # draft-04 tuple form
            prefix, items = items, schema.get("additionalItems", {})
        lo = int(schema.get("minItems", 0))
        hi_raw = schema.get("maxItems")
        hi = int(hi_raw) if hi_raw is not None else lo + 3
        if depth >= _MAX_DEPTH:
            count = lo
        else:
            count = self.rng.randint(lo, max(lo, min(hi, max(lo, 1) + 2)))
        if items is False:
            count = min(count, len(prefix))
        count = max(count, min(len(prefix), hi))
        unique = bool(schema.get("uniqueItems"))
        out: list[Any] = []
        for i in range(count):
            sub = prefix[i] if i < len(prefix) else items
            item = self.value(sub, depth + 1)
            tries = 0
            while unique and item in out and tries < 20:
                item = self.value(sub, depth + 1)
                tries += 1
            if unique and item in out and len(out) >= lo:
                break
            out.append(item)
        return out

    def string(self, schema: dict[str, Any], depth: int = 0) -> str:
        fmt = schema.get("format")
        if fmt in _FORMATS:
            return _FORMATS[fmt](self.rng)
        lo = int(schema.get("minLength", 0))
        hi_raw = schema.get("maxLength")
        hi = int(hi_raw) if hi_raw is not None else max(lo, 60)
        target = self.rng.randint(max(lo, min(hi, 8)), max(lo, min(hi, 48)))
        words: list[str] = []
        length = 0
        while length < target:
            word = self.rng.choice(PORTUGUESE_WORDS)
            words.append(word)
            length += len(word) + (1 if len(words) > 1 else 0)
        text = " ".join(words)
        if len(text) > hi:
            cut = text[: hi + 1].rfind(" ")
            text = text[:cut] if cut >= max(lo, 1) else text[:hi]
        if len(text) < lo:
            text = text + "a" * (lo - len(text))
        return text

    def integer(self, schema: dict[str, Any], depth: int) -> int:
        lo, hi = _bounds(schema, integer=True)
        step = schema.get("multipleOf")
        if step:
            step_i = int(step)
            first = math.ceil(lo / step_i)
            last = math.floor(hi / step_i)
            if first <= last:
                return self.rng.randint(first, last) * step_i
        return self.rng.randint(int(lo), int(hi))

    def number(self, schema: dict[str, Any], depth: int) -> float | int:
        lo, hi = _bounds(schema, integer=False)
        step = schema.get("multipleOf")
        if step:
            first = math.ceil(lo / step)
            last = math.floor(hi / step)
            if first <= last:
                return float(self.rng.randint(first, last) * step)
        value = round(self.rng.uniform(lo, hi), 2)
        if not lo <= value <= hi:  # rounding pushed it past a bound
            value = lo if self.rng.random() < 0.5 else hi
        return value

    def boolean(self, schema: dict[str, Any], depth: int) -> bool:
        return self.rng.random() < 0.5

    def null(self, schema: dict[str, Any], depth: int) -> None:
        return None


def _bounds(schema: dict[str, Any], *, integer: bool) -> tuple[float, float]:
    eps = 1 if integer else 0.01
    lo: float | None = schema.get("minimum")
    hi: float | None = schema.get("maximum")
    ex_lo = schema.get("exclusiveMinimum")
    ex_hi = schema.get("exclusiveMaximum")
    if ex_lo is True and lo is not None:  # draft-04 booleans
        lo += eps
    elif isinstance(ex_lo, int | float) and not isinstance(ex_lo, bool):
        lo = ex_lo + eps if lo is None else max(lo, ex_lo + eps)
    if ex_hi is True and hi is not None:
        hi -= eps
    elif isinstance(ex_hi, int | float) and not isinstance(ex_hi, bool):
        hi = ex_hi - eps if hi is None else min(hi, ex_hi - eps)
    if lo is None and hi is None:
        lo, hi = 0, 100
    elif lo is None:
        assert hi is not None
        lo = hi - 100
    elif hi is None:
        hi = lo + 100
    if integer:
        lo, hi = math.ceil(lo), math.floor(hi)
    if hi < lo:
        hi = lo
    return lo, hi


def _infer_type(schema: dict[str, Any]) -> str:
    if "properties" in schema or "additionalProperties" in schema or "required" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema or "minItems" in schema:
        return "array"
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        return "number"
    return "string"


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Combine two schemas that must both hold (``allOf``), as far as generation needs."""
    out = dict(a)
    for key, value in b.items():
        if key == "properties" and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        elif key == "required" and isinstance(out.get(key), list):
            out[key] = list(dict.fromkeys([*out[key], *value]))
        elif key in ("minimum", "minLength", "minItems", "exclusiveMinimum") and key in out:
            out[key] = max(out[key], value)
        elif key in ("maximum", "maxLength", "maxItems", "exclusiveMaximum") and key in out:
            out[key] = min(out[key], value)
        else:
            out[key] = value
    return out


def _date(rng: random.Random) -> str:
    return f"{rng.randint(2000, 2026):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _datetime(rng: random.Random) -> str:
    return f"{_date(rng)}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"


def _email(rng: random.Random) -> str:
    return f"{_ascii(rng.choice(PORTUGUESE_WORDS))}@exemplo.com.br"


def _uri(rng: random.Random) -> str:
    return f"https://exemplo.com.br/{_ascii(rng.choice(PORTUGUESE_WORDS))}"


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def _ascii(word: str) -> str:
    return unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()


def _time(rng: random.Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00"


_FORMATS: dict[str, Callable[[random.Random], str]] = {
    "date": _date,
    "date-time": _datetime,
    "email": _email,
    "uri": _uri,
    "url": _uri,
    "uuid": _uuid,
    "time": _time,
}

_MAKERS = {
    "object": _Generator.object,
    "array": _Generator.array,
    "string": _Generator.string,
    "integer": _Generator.integer,
    "number": _Generator.number,
    "boolean": _Generator.boolean,
    "null": _Generator.null,
}
