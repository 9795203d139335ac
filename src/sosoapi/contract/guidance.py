"""What each `reason` (and each unsettled `state`) means, and what to do next: one table.

It drives the first line of a retrieve result's MCP `content` (one sentence when the
result is not `ready`) and the README's troubleshooting table (`markdown_table`), so the
agent and the person read the same advice.
"""

from __future__ import annotations

from sosoapi.contract.vocabulary import Cause, Reason, State

# reason -> (what it means, what to do); `{retry_after}` is filled in when known.
REASONS: dict[Reason, tuple[str, str]] = {
    Reason.UNSAFE_URL: (
        "the address is not a public https address on an allowed port",
        "only public https addresses on allowed ports are read; use the public URL",
    ),
    Reason.UNSUPPORTED_SOURCE: (
        "the page belongs to a platform (video sites and the like), not a publisher",
        "use the publisher's own page or its published caption file",
    ),
    Reason.UNSUPPORTED_MEDIA: (
        "the response is not a type this server reads (HTML, text, WebVTT, SubRip)",
        "point to an HTML page, a text file or a caption file",
    ),
    Reason.UNSUPPORTED_CONTENT: (
        "the body could not be read as the declared type",
        "check the URL returns the page or file itself, not a download wrapper",
    ),
    Reason.ACCESS_DENIED: (
        'the origin refused the request (403, robots.txt, or a "403 Forbidden" page served'
        " as success), or answered with a bot-defence challenge or block page (Cloudflare,"
        ' DataDome, a CAPTCHA, a "please wait" interstitial, any status); nothing was kept',
        "retrying will not get past it: use another copy of the source (the publisher's"
        " feed, an archive, a press release) or ask a person to open it in a browser",
    ),
    Reason.LOGIN_REQUIRED: (
        "the origin answered with a login, consent or subscription wall instead of the"
        " content (a sign-in page, Google's consent page, a redirect to either); nothing"
        " was kept",
        "use a public copy of the source (an archive, the publisher's feed or press"
        " release); a wall does not go away on retry",
    ),
    Reason.NO_TEXT: (
        "the page has no main text in its HTML: it is navigation only, or a script shell"
        " whose text only a browser builds (this server never runs scripts)",
        "try the article's own URL, a print or AMP version, or its feed; a script shell"
        " needs a browser",
    ),
    Reason.METADATA_ONLY: (
        "only the title and description could be read: the HTML carries no text of its own"
        " (often a page built by scripts)",
        "use the result as metadata only, never as the source's text; for the text, find a"
        " print, AMP or feed version, or open the page in a browser",
    ),
    Reason.NO_CAPTIONS: (
        "the page declares no published caption file",
        "ask for `url_text`, or point to the caption file directly",
    ),
    Reason.INVALID_CAPTIONS: (
        "the caption file is not valid WebVTT or SubRip",
        "point to a well-formed .vtt or .srt file",
    ),
    Reason.NOT_FOUND: (
        'the origin answered 404 or 410 (or a "page not found" page served as success,'
        " or a redirect sent the read of an item to the site's home page), or its host"
        " name does not exist",
        "check the URL for typos, search the site for the page's new address, or use an"
        " archived copy; retrying the same URL will not help",
    ),
    Reason.RATE_LIMITED: (
        "the origin (or this server's politeness limit) asked to slow down",
        "retry with a new mutation_id after {retry_after} seconds (a settled mutation_id "
        "is never read again)",
    ),
    Reason.RESPONSE_TOO_LARGE: (
        "the body exceeded the size limit",
        "point to a smaller page or file",
    ),
    Reason.TEXT_LIMITED: (
        "the text was cut at the length limit (the result says so)",
        "use the partial text, or read a narrower page",
    ),
    Reason.NODES_LIMITED: (
        "the page has more elements than are parsed; the text may be incomplete",
        "use the partial text, or read a simpler copy of the page",
    ),
    Reason.CUES_LIMITED: (
        "the caption file has more cues than are kept",
        "use the partial captions, or split the file",
    ),
    Reason.INVALID_CUES: (
        "some caption cues were malformed and skipped",
        "use the cues that remain",
    ),
    Reason.LANGUAGE_MISMATCH: (
        "no text in the requested language was found",
        "retry with another `language`, or without one",
    ),
    Reason.SOURCE_PARTIAL: (
        "the origin sent an incomplete body: the connection broke early, or the page is a"
        " subscriber article that stops at its teaser",
        "use the partial text as what it is; retry with a new mutation_id later if the"
        " connection broke, find a free copy for the rest of a subscriber article",
    ),
    Reason.TIMEOUT: ("the origin did not answer in time", "retry with a new mutation_id later"),
    Reason.CANCELLED: (
        "the call was cancelled before the read finished",
        "retry with a new mutation_id",
    ),
    Reason.EGRESS_UNAVAILABLE: (
        "this server cannot reach the network (or its proxy)",
        "ask the operator to check SOSOAPI_EGRESS_PROXY and the network",
    ),
    Reason.UNAVAILABLE: (
        "the origin failed (5xx, a server error page served as success, or a broken connection)",
        "retry with a new mutation_id later",
    ),
}

# A reason with several causes, told apart: cause -> (its reason, what failed, what to do).
# The reason stays the published one; the cause words the advice and the log.
CA_BUNDLE_FIX = "an operator adds a private CA with SOSOAPI_EGRESS_CA_BUNDLE (a PEM file)"
CAUSES: dict[Cause, tuple[Reason, str, str]] = {
    Cause.CERTIFICATE_UNTRUSTED: (
        Reason.UNSAFE_URL,
        "the origin's TLS certificate is issued by a CA this server does not trust "
        "(untrusted issuer)",
        f"for an origin behind a private CA, {CA_BUNDLE_FIX}; otherwise use the public URL",
    ),
    Cause.CERTIFICATE_SELF_SIGNED: (
        Reason.UNSAFE_URL,
        "the origin's TLS certificate is self-signed",
        f"use the public URL; to trust this origin, {CA_BUNDLE_FIX} holding its certificate",
    ),
    Cause.CERTIFICATE_NAME_MISMATCH: (
        Reason.UNSAFE_URL,
        "the origin's TLS certificate does not name this host (name mismatch)",
        "use the host name the certificate was issued for (the site's canonical URL)",
    ),
    Cause.CERTIFICATE_EXPIRED: (
        Reason.UNSAFE_URL,
        "the origin's TLS certificate has expired or is not yet valid",
        "the site must renew its certificate; retry with a new mutation_id once it has",
    ),
    Cause.CERTIFICATE_INVALID: (
        Reason.UNSAFE_URL,
        "the origin's TLS certificate did not verify",
        f"use the public URL; for an origin behind a private CA, {CA_BUNDLE_FIX}",
    ),
    Cause.PRIVATE_ADDRESS: (
        Reason.UNSAFE_URL,
        "the host is, or resolves to, a private, loopback or reserved address",
        "use the public URL; an operator admits a private origin with SOSOAPI_EGRESS_ALLOW",
    ),
    Cause.PORT_NOT_ALLOWED: (
        Reason.UNSAFE_URL,
        "the URL's port is not one this server reads",
        "use the URL on port 443; an operator adds ports with SOSOAPI_EGRESS_PORTS",
    ),
    Cause.NOT_HTTPS: (
        Reason.UNSAFE_URL,
        "the URL (or a redirect) is not https",
        "use the https:// URL of the source",
    ),
    Cause.MALFORMED_URL: (
        Reason.UNSAFE_URL,
        "the URL is ambiguous or malformed (credentials, spaces or control characters, "
        "an invalid host or port)",
        "send the plain https URL as a browser shows it",
    ),
    Cause.ORIGIN_ERROR: (
        Reason.UNAVAILABLE,
        "the origin answered with a server error (5xx)",
        "retry with a new mutation_id later",
    ),
    Cause.ORIGIN_STATUS: (
        Reason.UNAVAILABLE,
        "the origin answered with a status this server does not read as a page",
        "check the URL in a browser; retry with a new mutation_id if it works there",
    ),
    Cause.CONNECTION_BROKEN: (
        Reason.UNAVAILABLE,
        "the connection to the origin was reset or closed mid-answer",
        "retry with a new mutation_id later",
    ),
    Cause.TLS_HANDSHAKE: (
        Reason.UNAVAILABLE,
        "the TLS handshake with the origin failed (no protocol or cipher in common)",
        "the origin needs TLS 1.2 or later; retry later or use another copy of the source",
    ),
    Cause.TOO_MANY_REDIRECTS: (
        Reason.UNAVAILABLE,
        "the origin redirected too many times",
        "point to the final URL a browser lands on",
    ),
    Cause.UNSUPPORTED_ENCODING: (
        Reason.UNAVAILABLE,
        "the origin sent a content encoding this server does not decode",
        "retry later or use another copy of the source",
    ),
    Cause.PDF_DOCUMENT: (
        Reason.UNSUPPORTED_MEDIA,
        "the response is a PDF, which this tool does not read",
        "call sosoapi_research_document_retrieve with this same url: it reads PDFs page by page",
    ),
    Cause.NOT_A_PDF: (
        Reason.UNSUPPORTED_MEDIA,
        "the response is not a PDF, the only type the document tool reads",
        "read an HTML page, a text file or a caption file with sosoapi_research_evidence_retrieve",
    ),
    Cause.PDF_ENCRYPTED: (
        Reason.LOGIN_REQUIRED,
        "the PDF is encrypted with a password needed to open it",
        "this server reads no password-protected document: find an open copy (the "
        "publisher's, a repository's, an archive's)",
    ),
    Cause.NO_TEXT_LAYER: (
        Reason.NO_TEXT,
        "no page of the PDF has a text layer (scanned images, or text drawn as shapes)",
        "the pages need OCR, which this server does not do: find a copy with a text layer, "
        "or run OCR on the file and upload the result",
    ),
    Cause.PAGES_WITHOUT_TEXT: (
        Reason.SOURCE_PARTIAL,
        "some pages of the PDF have no text layer (scans): `pages` marks them `has_text` "
        "false, and their text is missing",
        "those pages need OCR, which this server does not do; quote only from the pages with text",
    ),
    Cause.PARSE_DEADLINE: (
        Reason.UNSUPPORTED_CONTENT,
        "the body took longer to parse than this server allows one page (a page built to"
        " be costly to read, or far larger than a document)",
        "reading it again will end the same way: use another copy of the source (the"
        " publisher's print or AMP version, its feed, an archive)",
    ),
    Cause.PARSE_MEMORY: (
        Reason.UNSUPPORTED_CONTENT,
        "the body needed more memory to parse than this server allows one page, or broke"
        " the parser",
        "reading it again will end the same way: use another copy of the source (the"
        " publisher's print or AMP version, its feed, an archive)",
    ),
    Cause.STORAGE_FULL: (
        Reason.UNAVAILABLE,
        "the source was read, but storing it would pass the workspace's storage limit, "
        "so nothing of it was kept",
        "free space with `sosoapi purge` or have the operator raise "
        "SOSOAPI_WORKSPACE_STORAGE_MAX_MB (`sosoapi workspaces list` shows both), then retry "
        "with a new mutation_id",
    ),
}

# unsettled or failed states of a receipt -> (meaning, what to do)
STATES: dict[State, tuple[str, str]] = {
    State.PENDING: (
        "the read is queued (for a slot, or for the origin's turn under its Crawl-delay); it "
        "runs without you",
        "replay the same mutation_id to collect it",
    ),
    State.RUNNING: ("the read is in progress", "replay the same mutation_id to collect it"),
    State.UNCONFIRMED: (
        "the server lost track of the read (it stopped mid-read)",
        "retry with a new mutation_id",
    ),
    State.EXPIRED: ("the read never ran inside its window", "retry with a new mutation_id"),
    State.CANCELLED: ("the call was cancelled", "retry with a new mutation_id"),
}


def cause_of(reason: Reason | None, cause: str | None) -> Cause | None:
    """`cause` when it is a known cause of `reason` (a stored value from an older or newer
    version, or a cause of another reason, is ignored)."""
    known = next((c for c in Cause if c.value == cause), None)
    return known if known is not None and CAUSES[known][0] == reason else None


def advice(
    reason: Reason | None,
    state: State,
    retry_after: int | None = None,
    cause: str | None = None,
) -> str:
    """One sentence: what the reason (or the state) means and what to do next; with a
    known `cause`, what exactly failed and its own fix."""
    known = cause_of(reason, cause)
    if known is not None:
        _, meaning, action = CAUSES[known]
        return f"{CAUSES[known][0].value}, {known.value}: {meaning}; {action}."
    meaning, action = REASONS[reason] if reason else STATES.get(state, ("", ""))
    if not meaning:
        return ""
    action = action.format(retry_after=retry_after or "a few")
    return f"{(reason or state).value}: {meaning}; {action}."


def markdown_table() -> str:
    """The README's troubleshooting table, row for row from the tables above."""
    rows = ["| `reason` | what it means | what to do |", "|---|---|---|"]
    for reason, (meaning, action) in REASONS.items():
        rows.append(f"| `{reason.value}` | {meaning} | {action.format(retry_after='N')} |")
    for state, (meaning, action) in STATES.items():
        rows.append(f"| state `{state.value}` | {meaning} | {action} |")
    return "\n".join(rows)


def causes_table() -> str:
    """The README's table of the causes behind `unsafe_url` and `unavailable`."""
    rows = ["| `reason` | cause | what failed | what to do |", "|---|---|---|---|"]
    for cause, (reason, meaning, action) in CAUSES.items():
        rows.append(f"| `{reason.value}` | `{cause.value}` | {meaning} | {action} |")
    return "\n".join(rows)
