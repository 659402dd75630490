"""Weights for a local model: joining packaged parts, checking them, naming what is missing.

The packaged parts are found the way the real ones are (import names on ``sys.path``, files in
``<package>/data/*.bin``); here they are tiny packages written into a temp folder.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from colmeia.cli import app
from colmeia.errors import ConfigurationError
from colmeia.llm.gguf import PACKAGED, PackagedGGUF, check_gguf, join_parts, resolve_gguf

PAYLOAD = b"GGUF" + bytes(range(256)) * 40


def _publish(root: Path, prefix: str, payload: bytes, parts: int) -> PackagedGGUF:
    """Write ``payload`` as ``parts`` packages ``<prefix>1…N`` the way the registry ships them."""
    step = -(-len(payload) // parts)
    names = []
    for i in range(parts):
        package = root / f"{prefix}{i + 1}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{i + 1:02d}.bin").write_bytes(payload[i * step : (i + 1) * step])
        names.append(package.name)
    return PackagedGGUF(
        name=f"{prefix}model",
        packages=tuple(names),
        size=len(payload),
        sha256=hashlib.sha256(payload).hexdigest(),
        summary="test",
    )


@pytest.fixture
def published(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PackagedGGUF:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    return _publish(site, "fakeparts_a_part", PAYLOAD, parts=3)


def test_parts_are_joined_in_order_and_the_result_is_verified(
    published: PackagedGGUF, tmp_path: Path
) -> None:
    path = join_parts(published, tmp_path / "cache")
    assert path.read_bytes() == PAYLOAD
    assert path.name == "fakeparts_a_partmodel.gguf"
    assert check_gguf(path) == path


def test_a_verified_copy_is_not_joined_again(published: PackagedGGUF, tmp_path: Path) -> None:
    path = join_parts(published, tmp_path / "cache")
    before = path.stat().st_mtime_ns
    assert join_parts(published, tmp_path / "cache") == path
    assert path.stat().st_mtime_ns == before


def test_a_cached_copy_changed_on_disk_is_rebuilt(published: PackagedGGUF, tmp_path: Path) -> None:
    path = join_parts(published, tmp_path / "cache")
    path.write_bytes(b"GGUF broken")
    assert join_parts(published, tmp_path / "cache").read_bytes() == PAYLOAD


def test_parts_that_do_not_add_up_are_refused_and_leave_nothing_behind(
    published: PackagedGGUF, tmp_path: Path
) -> None:
    wrong = PackagedGGUF(
        published.name, published.packages, published.size, "0" * 64, published.summary
    )
    with pytest.raises(ConfigurationError, match=r"do not add up.*reinstall"):
        join_parts(wrong, tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*.gguf*"))


def test_missing_parts_are_named_with_what_to_install(
    published: PackagedGGUF, tmp_path: Path
) -> None:
    missing = PackagedGGUF(
        "incomplete",
        (*published.packages, "fakeparts_a_part9"),
        published.size,
        published.sha256,
        "test",
    )
    with pytest.raises(ConfigurationError, match=r"fakeparts-a-part9.*--gguf"):
        join_parts(missing, tmp_path / "cache")


def test_the_published_models_are_pinned_by_size_and_hash() -> None:
    small = PACKAGED["qwen2.5-coder-0.5b-instruct"]
    assert small.size == 491_400_064
    assert small.sha256.startswith("1d9614638d18")
    assert len(small.packages) == 6
    assert len(PACKAGED["qwen2.5-coder-1.5b-instruct"].packages) == 22


def test_a_file_that_is_not_gguf_is_refused_by_name(tmp_path: Path) -> None:
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(ConfigurationError, match=r"model\.gguf is not a GGUF model"):
        resolve_gguf(bogus)
    with pytest.raises(ConfigurationError, match="does not exist"):
        resolve_gguf(tmp_path / "absent.gguf")
    with pytest.raises(ConfigurationError, match=r"packaged models: qwen2\.5"):
        resolve_gguf("llama-70b")


runner = CliRunner()


def test_serve_refuses_a_file_that_is_not_a_model_in_one_line(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.gguf"
    bogus.write_text("hello")
    result = runner.invoke(app, ["llm", "serve", "--gguf", str(bogus), "--port", "0"])
    assert result.exit_code == 2
    # Rich wraps at 80 columns, inside the temp path too: compare without any whitespace
    assert "notes.ggufisnotaGGUFmodel" in "".join(result.output.split())
    assert "Traceback" not in result.output


def test_serve_refuses_a_port_in_use_before_loading(tmp_path: Path) -> None:
    import socket

    model = tmp_path / "m.gguf"
    model.write_bytes(PAYLOAD)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["llm", "serve", "--gguf", str(model), "--port", str(port)])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in " ".join(result.output.split())


def test_serve_refuses_a_poll_outside_0_to_100_before_loading(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(PAYLOAD)
    result = runner.invoke(app, ["llm", "serve", "--gguf", str(model), "--poll", "150"])
    assert result.exit_code == 2
    assert "--poll must be between 0 and 100, not 150" in " ".join(result.output.split())
