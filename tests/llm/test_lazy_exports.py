"""``colmeia.llm`` loads its names when first used (PEP 562), so importing a light part of the
model layer does not bring the HTTP client; every public name is still there."""

from __future__ import annotations

import subprocess
import sys

import pytest

import colmeia.llm


@pytest.mark.parametrize("name", colmeia.llm.__all__)
def test_every_public_name_of_the_model_layer_is_importable(name: str) -> None:
    value = getattr(colmeia.llm, name)

    assert value is not None
    assert name in dir(colmeia.llm)


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match="'OpenAIChatModl'"):
        colmeia.llm.OpenAIChatModl  # noqa: B018


def test_the_light_parts_of_the_layer_load_without_the_http_client() -> None:
    code = (
        "import sys, colmeia.llm.notice, colmeia.llm.gguf\n"
        "print('aiohttp' in sys.modules, 'colmeia.llm.openai_compat' in sys.modules)\n"
        "from colmeia.llm import OpenAIChatModel\n"
        "print(OpenAIChatModel.__module__, 'aiohttp' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)

    assert out.stdout.split() == ["False", "False", "colmeia.llm.openai_compat", "True"], out.stderr
