"""Hostile zip packages for the archive-limit tests (rag, CLI and service).

``bomb_docx`` is the attack from issue 20: a real Word document whose relationships point at a
huge all-zero part, so python-docx would inflate it while loading the package.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

_ZEROS = bytes(1 << 20)


def plain_docx(path: Path, text: str = "Art. 1º Esta lei dispõe sobre o acesso.") -> Path:
    import docx

    document = docx.Document()
    document.add_paragraph(text)
    document.save(str(path))
    return path


def bomb_docx(path: Path, megabytes: int = 800) -> Path:
    """A valid DOCX plus ``megabytes`` MB of zeros in a related part (packs to ~1/1000)."""
    plain = plain_docx(path.with_suffix(".plain.docx"))
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "word/_rels/document.xml.rels":
                data = data.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdBomb" Type="http://schemas.openxmlformats.org/'
                    b'officeDocument/2006/relationships/image" Target="media/zeros.png"/>'
                    b"</Relationships>",
                )
            out.writestr(item, data)
        with out.open("word/media/zeros.png", "w", force_zip64=True) as member:
            for _ in range(megabytes):
                member.write(_ZEROS)
    plain.unlink()
    return path


def many_members_zip(path: Path, members: int) -> Path:
    with zipfile.ZipFile(path, "w") as out:
        for i in range(members):
            out.writestr(f"m{i}.txt", b"x")
    return path


def nested_zip(path: Path, depth: int) -> Path:
    """A zip holding a zip holding … ``depth`` levels of archives."""
    inner = b""
    for level in range(depth, 0, -1):
        import io

        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as out:
            out.writestr("leaf.txt", b"leaf")
            if inner:
                out.writestr(f"level{level + 1}.zip", inner)
        inner = buf.getvalue()
    path.write_bytes(inner)
    return path
