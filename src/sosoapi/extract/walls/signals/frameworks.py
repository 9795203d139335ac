"""Script frameworks: the empty mount points of their shells and where they embed the
page's data (`shell.py` and `embedded.py` read with them)."""

from __future__ import annotations

import re

# The mount points of React (create-react-app `#root`), Vue (`#app`), Next.js (`#__next`),
# Nuxt (`#__nuxt`), Gatsby (`#___gatsby`), SvelteKit and Angular (`<app-root>`), left
# empty in the served HTML; a `<noscript>` that asks for JavaScript (their templates).
SHELL_MARKUP = re.compile(
    r"<div\b[^<>]{0,300}?\bid=[\"']?(?:root|app|__next|__nuxt|___gatsby|svelte)(?=[\"'\s>])"
    r"[^<>]{0,300}>\s*</div>"
    r"|<app-root\b|<noscript\b[^<>]{0,300}>(?:(?!</noscript).){0,400}?javascript",
    re.I | re.S,
)
# Openers of the script elements read as data; their content runs to the next `</script`
# (found with str.find, so a page of unclosed openers costs one pass, not one per opener).
LD_JSON = re.compile(r"<script\b[^<>]{0,300}?type=[\"']?application/ld\+json[^<>]{0,300}>", re.I)
SCRIPT_JSON = re.compile(
    r"<script\b[^<>]{0,300}?\bid=[\"']?(__NEXT_DATA__|__NUXT_DATA__)[^<>]{0,300}>"
)
STATE_ASSIGNMENT = re.compile(r"window\.(__NUXT__|__INITIAL_STATE__)\s*=\s*")
# Keys whose plain-string value is an article body in Next.js page props and Nuxt state
# (observed in WordPress-, Contentful- and Sanity-backed Next.js and Nuxt sites).
BODY_KEYS = frozenset(
    {"articlebody", "body", "bodytext", "bodyhtml", "body_html", "content", "contenthtml",
     "content_html", "contenttext", "text", "html", "articletext", "storytext", "fulltext"}
)  # fmt: skip
HTML_IN_TEXT = re.compile(r"</?(?:p|div|br|h[1-6]|li|ul|blockquote|span|a|strong|em)\b", re.I)
