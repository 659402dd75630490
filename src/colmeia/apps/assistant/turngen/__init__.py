"""Generated conversations and training utterances for the assistant (templates × lexicons ×
noise, deterministic by seed): the development and frozen test sets of ``colmeia eval
assistant --set generated-dev|generated-test`` and the corpus the turn classifier learns from."""

from colmeia.apps.assistant.turngen.files import SET_NAMES, set_folder, write_sets
from colmeia.apps.assistant.turngen.generate import (
    AS_OF,
    REGISTRY,
    SEEDS,
    Labelled,
    generate_set,
    training_corpus,
)

__all__ = [
    "AS_OF",
    "REGISTRY",
    "SEEDS",
    "SET_NAMES",
    "Labelled",
    "generate_set",
    "set_folder",
    "training_corpus",
    "write_sets",
]
