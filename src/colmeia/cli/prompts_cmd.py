"""``colmeia prompts …``: export the packaged prompt templates, check a prompts folder."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from colmeia.errors import ColmeiaError

app = typer.Typer(help="Prompt templates: export the packaged ones, check a prompts folder.")
console = Console()


@app.callback()
def _group() -> None:
    """Prompt templates: export the packaged ones, check a prompts folder."""


@app.command()
def export(
    target: Path = typer.Argument(..., help="Folder to write <package>/<name>.j2 files into."),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace templates already in the folder."
    ),
) -> None:
    """Write every packaged template as a starting point for COLMEIA_PROMPTS_DIR / --prompts."""
    from colmeia.cli.plumbing import fail
    from colmeia.llm.prompts import export_prompts

    try:
        files = export_prompts(target, overwrite=overwrite)
    except ColmeiaError as exc:
        raise fail(exc) from None
    packages = sorted({f.parent.name for f in files})
    console.print(
        f"{len(files)} templates of {len(packages)} packages ({', '.join(packages)}) → {target}",
        highlight=False,
    )
    console.print(
        "Edit the ones to change and delete the rest; use the folder with "
        "COLMEIA_PROMPTS_DIR or --prompts.",
        highlight=False,
    )


@app.command()
def check(folder: Path = typer.Argument(..., help="A prompts folder.")) -> None:
    """Validate a prompts folder: names, syntax, variables; print its hash."""
    from colmeia.cli.plumbing import fail
    from colmeia.llm.prompts import PromptsDir

    try:
        found = PromptsDir.load(folder)
    except ColmeiaError as exc:
        raise fail(exc) from None
    console.print(f"{folder}: {len(found.overrides)} template(s) override the packaged ones")
    for name in found.overrides:
        unused = found.dropped.get(name)
        note = f"  (does not use: {', '.join(unused)})" if unused else ""
        console.print(f"  {name}{note}", highlight=False)
    if found.unchanged:
        console.print(
            f"{len(found.unchanged)} unedited copy(ies) of packaged templates (not overrides; "
            "delete them to keep the folder to what you changed)",
            highlight=False,
        )
    console.print(f"sha256 {found.sha256}", highlight=False)


@app.command("list")
def list_() -> None:
    """The packaged templates, by package."""
    from colmeia.llm.prompts import packaged_templates

    for short, (package, folder) in sorted(packaged_templates().items()):
        names = sorted(p.name for p in folder.glob("*.j2"))
        console.print(f"{short} ({package}): {', '.join(names)}", highlight=False)
