"""What a judgement is given and what it answers: the page, the verdict, the wall reasons."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.html_bounds import BoundedMarkup


@dataclass(frozen=True, slots=True)
class Page:
    """A decoded HTML page as the reader received it, within the parse bounds."""

    source: BoundedMarkup
    title: str | None = None
    status: int | None = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    redirected_to: str | None = None  # where a redirect landed; None: the URL asked for
    url: str | None = None  # the page's own URL (where the read ended)
    asked: str | None = None  # the URL the read asked for, where a redirect moved it

    @property
    def markup(self) -> str:
        return self.source.markup


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the page is: the text to keep, the conditions met, and a name for it.

    `kind` is "page" (the source's content as extracted), or what replaced or removed
    it: "challenge:<vendor>", "consent", "banner" (an article with its banner cut out),
    "soft_404", "server_error", "forbidden", "redirected_home", "teaser",
    "embedded:<source>", "shell", "chrome", "sign_in".
    """

    text: str
    conditions: tuple[Reason, ...] = ()
    kind: str = "page"
