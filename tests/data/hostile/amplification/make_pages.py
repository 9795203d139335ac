"""Writes the amplification pages of this folder (README.md says what each is).

    .venv/bin/python tests/data/hostile/amplification/make_pages.py

`page(shape, body_chars, references)` is also what bench/hostile.py builds its larger
pages with, so the committed pages and the measured ones have one recipe.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Written for this folder; varied so no two paragraphs are alike.
_SENTENCES = (
    "The council met on Tuesday to discuss the budget for the coming year.",
    "Residents asked why the library on the corner would close two days a week.",
    "A spokesperson said the decision would be reviewed after the summer.",
    "Engineers found that the bridge needed new bearings before the winter.",
    "The school will open a second kitchen so that lunches can be cooked on site.",
    "Local shops reported more visitors after the market moved to the square.",
)
SHAPES = ("nuxt", "next")
# What each shape's page is named in this folder: (body characters, references).
COMMITTED = {"nuxt": (50_000, 4_000), "next": (50_000, 4_000)}


def article_markup(body_chars: int) -> str:
    """Paragraphs of prose, `body_chars` characters of markup or a little more."""
    parts: list[str] = []
    size, index = 0, 0
    while size < body_chars:
        sentences = " ".join(_SENTENCES[(index + k) % len(_SENTENCES)] for k in range(3))
        paragraph = f"<p>{index}. {sentences}</p>"
        parts.append(paragraph)
        size += len(paragraph)
        index += 1
    return "".join(parts)


def _payload(body_chars: int, references: int) -> list[object]:
    """A devalue-style table: index 1 holds the body, every later dict points at it."""
    table: list[object] = [{"items": 2}, article_markup(body_chars)]
    table.append(list(range(3, 3 + references)))
    table.extend({"id": n, "body": 1} for n in range(references))
    return table


def page(shape: str, body_chars: int, references: int) -> str:
    """A script shell whose embedded data is one large string and `references` references
    to it: Nuxt 3's `__NUXT_DATA__` or a list-shaped `__NEXT_DATA__`."""
    if shape not in SHAPES:
        raise ValueError(f"shape {shape!r}: expected one of {', '.join(SHAPES)}")
    data = json.dumps(_payload(body_chars, references), separators=(",", ":"))
    mount, script_id = (
        ("__nuxt", "__NUXT_DATA__") if shape == "nuxt" else ("__next", "__NEXT_DATA__")
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>Council budget</title></head><body>"
        f'<div id="{mount}"></div>'
        f'<script type="application/json" id="{script_id}">{data}</script>'
        "</body></html>\n"
    )


def plain_page(chars: int) -> str:
    """An ordinary article page of about `chars` characters: the cost baseline."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>Council budget</title></head><body><article>"
        f"{article_markup(chars - 150)}</article></body></html>\n"
    )


def main() -> int:
    for shape, (body_chars, references) in COMMITTED.items():
        (HERE / f"{shape}-references.html").write_text(
            page(shape, body_chars, references), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
