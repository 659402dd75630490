"""What a running service's state gives the code that serves requests: its home folder, the
shared model (or an error that says how to configure one) and the embedder its settings ask for."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from colmeia.config import EmbeddingsSettings
from colmeia.errors import ConfigurationError
from colmeia.service.state import NO_MODEL
from colmeia.sim import SimulatedModel


def test_the_state_home_is_the_folder_the_service_was_started_with(
    make_service: Callable[..., Any],
) -> None:
    svc = make_service()
    assert svc.state.home == svc.home
    assert (svc.state.home / "tenants").parent == svc.home


def test_without_a_model_asking_for_one_says_how_to_configure_it(
    make_service: Callable[..., Any],
) -> None:
    svc = make_service()
    assert svc.state.model is None
    with pytest.raises(ConfigurationError) as caught:
        svc.state.require_model()
    assert str(caught.value) == NO_MODEL
    assert "COLMEIA_LLM_BASE_URL" in str(caught.value) and "--simulated" in str(caught.value)


def test_with_a_model_asking_for_one_gives_that_model(make_service: Callable[..., Any]) -> None:
    svc = make_service(SimulatedModel())
    assert svc.state.model is not None
    assert svc.state.require_model() is svc.state.model


def test_the_embedder_follows_the_embeddings_settings(make_service: Callable[..., Any]) -> None:
    """``COLMEIA_EMBEDDINGS_MODEL=none`` means lexical search only: no embedder at all; an
    offline name gives the offline e5 embedder."""
    svc = make_service()
    none = dataclasses.replace(
        svc.state,
        settings=svc.state.settings.model_copy(
            update={"embeddings": EmbeddingsSettings(model="none")}
        ),
    )
    assert none.embedder() is None
    e5 = dataclasses.replace(
        svc.state,
        settings=svc.state.settings.model_copy(
            update={"embeddings": EmbeddingsSettings(model="e5-small")}
        ),
    )
    assert e5.embedder() is not None
