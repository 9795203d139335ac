"""Calls to action at the end of an article: the furniture that reads like prose.

News and blog templates close the text with a line that asks the reader to do something
("Subscribe now", "Follow us on Telegram", "Download our app", "Sign up for the
newsletter"). Link and block rules keep them (they are unlinked sentences inside the
container), and trafilatura keeps them too. A short paragraph among the last few that
asks for a subscription, a follow or a sign-up is dropped; a long one is kept, since an
article may well be about newsletters or apps.
"""

from __future__ import annotations

import re

# How far from the end, and how long a call to action may be (chosen on the even half of
# the extraction-dev set; bench/README.md has the figures on both halves).
_LAST_PARAGRAPHS = 5
_MAX_CHARS = 250
_CALL = re.compile(
    r"subscri|abonnier|newsletter|telegram|whatsapp|follow us|folgen sie|s[ií]guenos"
    r"|suscr[ií]b|download the|app for|our app|sign up|anmelden|registrier|únete|join us"
    r"|support our|unterstütz|if you (?:enjoyed|liked)|lesen oder verschenken|lust auf mehr",
    re.IGNORECASE,
)


def drop_calls_to_action(text: str) -> str:
    """`text` (paragraphs apart by blank lines) without short calls to action at its end."""
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    dropped = {
        i
        for i in filled[-_LAST_PARAGRAPHS:]
        if len(lines[i]) <= _MAX_CHARS and _CALL.search(lines[i])
    }
    if not dropped or len(dropped) == len(filled):
        return text
    kept = [line for i, line in enumerate(lines) if i not in dropped]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")
