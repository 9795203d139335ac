"""schema.org types read from a page's JSON-LD, one home for both meanings.

Two lists, because two questions are asked of a JSON-LD node: is its `articleBody` the
article's text (walls' embedded-data reader), and do its author, publisher and dates
describe the page being cited (citation.py)? Names are lower case, as matched.
"""

from __future__ import annotations

# schema.org types whose `articleBody` is the article (schema.org/Article and subtypes).
ARTICLE_BODY_TYPES = frozenset(
    {"article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
     "opinionnewsarticle", "backgroundnewsarticle", "reviewnewsarticle", "techarticle",
     "scholarlyarticle", "liveblogposting", "report", "socialmediaposting", "posting"}
)  # fmt: skip
# Types whose author, publisher, dates and URL are the cited page's: eight of the Article
# types above and WebPage (a page that declares itself so describes itself).
CITED_TYPES = frozenset(
    {"article", "newsarticle", "blogposting", "scholarlyarticle", "report", "techarticle",
     "reportagenewsarticle", "analysisnewsarticle", "webpage"}
)  # fmt: skip
