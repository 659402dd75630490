"""Which language a text is in (Portuguese, Spanish or English), offline.

Detection uses py3langid (a maintained fork of langid.py whose model ships inside the package:
nothing is downloaded) restricted to the three languages the moderation app works with.
Short sentences are where such models err — "Atenciosamente, equipe Bosch." reads as Spanish
as often as Portuguese — so a text is judged on two levels:

* the whole text must be in the required language (unless the model is unsure);
* no sentence of three words or more may be, with high confidence, in another one: that catches
  a Portuguese sentence pasted inside a Spanish answer, the common failure of generated answers.

The thresholds are set so that greetings and signatures alone never trip the check; a mixed
answer is flagged only when a sentence is clearly in the other language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "LANGUAGES",
    "LanguageGuess",
    "detect",
    "language_name",
    "normalise_language",
    "wrong_language",
]

LANGUAGES: tuple[str, ...] = ("pt", "es", "en")
_NAMES = {
    "en": {"pt": "Portuguese", "es": "Spanish", "en": "English"},
    "pt-BR": {"pt": "português", "es": "espanhol", "en": "inglês"},
}
# Confidence (normalised probability among the three languages) above which a guess counts.
WHOLE_TEXT_CONFIDENCE = 0.8
SENTENCE_CONFIDENCE = 0.9
SENTENCE_MIN_WORDS = 3

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"\w+")
_ALIASES = {
    "portuguese": "pt",
    "português": "pt",
    "portugues": "pt",
    "spanish": "es",
    "español": "es",
    "espanol": "es",
    "espanhol": "es",
    "english": "en",
}


@dataclass(frozen=True, slots=True)
class LanguageGuess:
    """The most likely language of a text and how sure the model is (0–1)."""

    language: str
    confidence: float


@lru_cache(maxsize=1)
def _identifier() -> Any:
    # Loading the model (xz-compressed) takes ~1 s: once per process, on first use.
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    ident.set_languages(list(LANGUAGES))
    return ident


def normalise_language(code: str | None) -> str | None:
    """``"pt-BR"``, ``"pt_br"``, ``"portuguese"`` → ``"pt"``; unknown or empty → ``None``."""
    if not code:
        return None
    c = code.strip().lower().replace("_", "-")
    c = _ALIASES.get(c, c.split("-", 1)[0])
    return c if c in LANGUAGES else None


def language_name(code: str, in_language: str = "en") -> str:
    """``"es"`` → ``"Spanish"`` (or ``"espanhol"`` with ``in_language="pt-BR"``)."""
    names = _NAMES.get(in_language, _NAMES["en"])
    return names.get(code, code)


def detect(text: str) -> LanguageGuess:
    """The language of ``text`` among Portuguese, Spanish and English."""
    lang, prob = _identifier().classify(text)
    return LanguageGuess(str(lang), float(prob))


def wrong_language(text: str, required: str) -> str | None:
    """Why ``text`` is not (only) in ``required``, or ``None`` when it is.

    ``required`` is a code from :data:`LANGUAGES`. The answer names the language found and,
    for a mixed text, quotes the sentence in the other language.
    """
    if not _WORD.search(text):
        return None
    foreign: list[tuple[str, LanguageGuess]] = []
    sentences = 0
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip()
        if len(_WORD.findall(sentence)) < SENTENCE_MIN_WORDS:
            continue
        sentences += 1
        guess = detect(sentence)
        if guess.language != required and guess.confidence >= SENTENCE_CONFIDENCE:
            foreign.append((sentence, guess))
    if foreign and len(foreign) < sentences:
        sentence, guess = foreign[0]
        return (
            f"mixes languages: the sentence {sentence[:120]!r} is in "
            f"{language_name(guess.language)}, not {language_name(required)}"
        )
    whole = detect(text)
    if whole.language != required and (whole.confidence >= WHOLE_TEXT_CONFIDENCE or foreign):
        return (
            f"written in {language_name(whole.language)}, not {language_name(required)} "
            f"(confidence {whole.confidence:.2f})"
        )
    return None
