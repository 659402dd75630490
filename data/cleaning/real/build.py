"""Typeset the cleaning ground truth (``*.json`` here) as real documents: LaTeX (pdflatex) for
the ``abntex2`` and ``article-narrow`` templates, LibreOffice (``soffice --headless``) for the
``writer`` template. The PDFs are committed, so the benchmark runs without either tool; run this
only after editing a ``*.json``:

    python data/cleaning/real/build.py            # needs pdflatex (abntex2, babel brazil) / soffice

The layout (line breaks, hyphenation, where floats and footnotes fall) is the typesetter's own:
nothing here places a line by hand.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
_NOTE_RE = re.compile(r"\[\^(.+?)\]")

_TEX_HEAD = {
    "abntex2": r"""\documentclass[12pt,oneside,a4paper,brazil]{abntex2}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage[scaled]{helvet}
\renewcommand{\familydefault}{\sfdefault}
\usepackage{booktabs}
\renewcommand{\floatpagefraction}{.2}
""",
    "report-palatino": r"""\documentclass[11pt,a4paper]{report}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage[brazil]{babel}
\usepackage{mathpazo}
\usepackage[margin=3cm]{geometry}
\pagestyle{plain}
""",
    "article-narrow": r"""\documentclass[10pt]{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage[brazil]{babel}
\usepackage{mathptmx}
\usepackage[paperwidth=14cm,paperheight=20cm,textwidth=9.5cm,textheight=14.5cm]{geometry}
\pagestyle{myheadings}
\markright{Modelos didáticos no ensino de ciências}
""",
}

_TEX_COMMON = r"""\hyphenation{mode-los capítu-los esco-las célu-las janelas títu-los vín-culos}
\newcommand\capitular[1]{\par\noindent\hangindent=2.4em\hangafter=-2%
\llap{\raisebox{-1.1\baselineskip}[0pt][0pt]{\fontsize{30}{30}\selectfont #1}\hspace{0.3em}}%
\ignorespaces}
\begin{document}
"""


def _tex_escape(text: str) -> str:
    return text.replace("&", r"\&").replace("%", r"\%").replace("_", r"\_").replace("#", r"\#")


def _tex_inline(text: str) -> str:
    return _NOTE_RE.sub(lambda m: r"\footnote{" + _tex_escape(m.group(1)) + "}", _tex_escape(text))


def _tex_block(block: dict, template: str) -> str:
    kind = block["kind"]
    if kind == "heading":
        title = re.sub(r"^\d+\s+", "", block["text"])
        return (r"\chapter{" if template == "abntex2" else r"\section*{") + title + "}\n"
    if kind == "paragraph":
        text = _tex_inline(block["text"])
        if block.get("dropcap"):
            return r"\capitular{" + text[0] + "}" + text[1:] + "\n\n"
        return text + "\n\n"
    if kind == "list":
        items = "".join(r"\item " + _tex_inline(x) + "\n" for x in block["items"])
        return r"\begin{enumerate}" + "\n" + items + r"\end{enumerate}" + "\n"
    if kind in ("table", "grid"):
        rows = block["rows"]
        cols = "l" + "r" * (len(rows[0]) - 1)
        body = [" & ".join(map(_tex_escape, rows[0])) + r" \\ \hline"]
        body += [" & ".join(map(_tex_escape, r)) + r" \\" for r in rows[1:]]
        tabular = r"\begin{tabular}{" + cols + "}\n" + "\n".join(body) + "\n\\end{tabular}\n"
        if kind == "grid":
            return r"\begin{center}" + "\n" + tabular + r"\end{center}" + "\n"
        caption = block["caption"].split(" – ", 1)[1]
        source = block["source"].split(" ")
        lines = source[0] + r"\\" + r"\\".join(source[1:])
        return (
            r"\begin{table}["
            + block.get("float", "htb")
            + "]\n\\centering\n\\caption{"
            + caption
            + "}\n"
            + tabular
            + r"\par\vspace{4pt}{\small "
            + lines
            + "\\par}\n"
            r"\end{table}" + "\n"
        )
    raise ValueError(f"unknown block kind {kind!r}")


def build_tex(gold: dict, target: Path) -> None:
    template = gold["template"]
    body = "".join(_tex_block(b, template) for b in gold["blocks"])
    source = _TEX_HEAD[template] + _TEX_COMMON + body + "\\end{document}\n"
    target.with_suffix(".tex").write_text(source, encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(target.with_suffix(".tex"), Path(tmp) / "doc.tex")
        for _ in range(2):  # twice: float placement and references settle
            subprocess.run(
                ["pdflatex", "-interaction=nonstopmode", "doc.tex"],
                cwd=tmp,
                check=True,
                stdout=subprocess.DEVNULL,
            )
        shutil.copy(Path(tmp) / "doc.pdf", target)


def main() -> None:
    for path in sorted([*HERE.glob("*.json"), *HERE.glob("heldout/*.json")]):
        gold = json.loads(path.read_text(encoding="utf-8"))
        target = path.with_suffix(".pdf")
        if gold["template"] in _TEX_HEAD:
            build_tex(gold, target)
        elif gold["template"] == "writer":
            from fodt import build_fodt

            build_fodt(gold, target)
        else:
            continue
        sys.stdout.write(f"{target.name}\n")


if __name__ == "__main__":
    main()
