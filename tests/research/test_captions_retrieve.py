"""`published_captions` end to end: the retrieve operation against a loopback HTTPS origin.

Every dial the gate makes goes through a guard that admits only the origin; a stray dial
to loopback lands on a canary and anything else is refused without touching the network,
so "no request was made" is checked, not assumed. Runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

import sosoapi.application
from sosoapi.application import Application
from sosoapi.egress.gate import Egress
from sosoapi.egress.settings import EgressSettings
from sosoapi.store.tables import evidence_revisions
from tests.support.calls import args as retrieve_args
from tests.support.calls import call as retrieve_call
from tests.support.caption_texts import SAMPLES, UTF16_SAMPLES, Sample, encoded
from tests.support.hostile import Canary, DialGuard, MapResolver
from tests.support.origin import HTTPSOrigin, Route

DATA = Path(__file__).parents[1] / "data" / "captions"
INTERNAL = "internal.test"  # resolves to 127.0.0.2: loopback, but outside every allow rule

VTT = b"""WEBVTT

intro
00:00:01.000 --> 00:00:02.500 align:start
<v Ada>Hello <b>there</b></v>

00:00:03.000 --> 00:00:04.000
Second &amp; last
"""
VTT_TEXT = "Ada: Hello there\nSecond & last"


@pytest.fixture(scope="module")
def canary() -> Iterator[Canary]:
    with Canary() as listener:
        yield listener


@pytest.fixture(scope="module")
def shared_origin() -> Iterator[HTTPSOrigin]:
    with HTTPSOrigin() as server:
        yield server


@pytest.fixture
def origin(shared_origin: HTTPSOrigin) -> HTTPSOrigin:
    """One origin for the module (stopping a TLS server costs ~0.5 s), emptied per test."""
    shared_origin.routes.clear()
    shared_origin.hits.clear()
    shared_origin.connections = 0
    return shared_origin


@pytest.fixture
def body_limit() -> int | None:
    """The gate's body bound for a test (None: the default 5 MiB)."""
    return None


@pytest.fixture(autouse=True)
def guard(
    monkeypatch: pytest.MonkeyPatch, origin: HTTPSOrigin, canary: Canary, body_limit: int | None
) -> Iterator[DialGuard]:
    """Watch every dial of the application's egress gate (installed before it is built)."""
    dial_guard = DialGuard([("127.0.0.1", origin.port)], canary)
    resolver = MapResolver(None, {INTERNAL: ipaddress.ip_address("127.0.0.2")})

    def watched_egress(settings: EgressSettings, **wiring: Any) -> Egress:
        if body_limit is not None:
            settings = dataclasses.replace(settings, max_body_bytes=body_limit)
        return Egress(settings, resolver=resolver, network_backend=dial_guard, **wiring)

    monkeypatch.setattr(sosoapi.application, "Egress", watched_egress)
    yield dial_guard
    assert dial_guard.strays == [], f"dials outside the origin: {dial_guard.strays}"
    assert canary.connections == 0


def args(workspace_id: str, url: str, **extra: str) -> dict[str, str]:
    return retrieve_args(workspace_id, url, "published_captions", **extra)


async def call(app: Application, token: str, arguments: dict) -> dict:
    receipt = await retrieve_call(app, token, arguments)
    assert receipt["state"] == "completed", receipt
    return receipt


async def retrieve(
    app: Application, owner: tuple[str, str], url: str, **extra: str
) -> tuple[dict, dict | None]:
    """(result, evidence) of one completed retrieval, with the rules every outcome obeys."""
    workspace_id, token = owner
    receipt = await call(app, token, args(workspace_id, url, **extra))
    result = receipt["result"]
    provenance = result["provenance"]
    assert result["kind"] == "published_captions"
    assert provenance["platform_native_verified"] is False
    assert (provenance["language"] is not None) is (
        provenance["language_source"] == "publisher_declared"
    )
    usable = result["status"] in ("ready", "partial")
    assert (receipt["evidence"] is not None) is usable
    if not usable:
        assert result["segments"] == [] and result["text"] == ""
    return result, receipt["evidence"]


def serve(origin: HTTPSOrigin, path: str, body: bytes, content_type: str | None) -> str:
    origin.routes[path] = Route(body, content_type=content_type)
    return origin.url(path)


def segments(result: dict) -> list[tuple[int, int, str]]:
    return [(s["start_ms"], s["end_ms"], s["text"]) for s in result["segments"]]


def outcome(result: dict) -> tuple[str, str | None, list[str]]:
    return result["status"], result["reason"], result["warnings"]


def page(*tracks: str, head: str = "") -> bytes:
    return (
        f"<!doctype html><html lang=en><head>{head}</head><body>"
        f"<video src=/film.mp4>{''.join(tracks)}</video></body></html>"
    ).encode()


TITLED = '<title>Lecture 4</title><meta name="description" content="Tides and the moon.">'


# --- caption files served directly ------------------------------------------------------


async def test_webvtt_served_as_text_vtt_is_ready_with_timed_segments(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    url = serve(origin, "/talk.vtt", VTT, "text/vtt; charset=utf-8")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("ready", None, [])
    assert segments(result) == [(1000, 2500, "Ada: Hello there"), (3000, 4000, "Second & last")]
    assert result["text"] == VTT_TEXT
    assert result["provenance"] | {"retrieved_at": None} == {
        "source_url": url,
        "retrieved_at": None,
        "mime_type": "text/vtt",
        "parser_version": "research-public-retrieval/v1",
        "content_kind": "published_caption_file",
        "caption_format": "webvtt",
        "language": None,
        "language_source": "unknown",
        "platform_native_verified": False,
    }
    assert evidence is not None and evidence["revision"] == 1


@pytest.mark.parametrize("content_type", ["application/x-subrip", "text/srt", "application/srt"])
async def test_subrip_served_under_each_subrip_type_is_ready(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, content_type: str
) -> None:
    url = serve(origin, "/ascii.srt", (DATA / "srt" / "ascii.srt").read_bytes(), content_type)
    result, _ = await retrieve(application, owner, url)
    assert outcome(result) == ("ready", None, [])
    assert segments(result) == [
        (27000, 30730, "ascii"),
        (31500, 34100, "oh look"),
        (34100, 36570, "ascii everywhere"),
    ]
    assert result["text"] == "ascii\noh look\nascii everywhere"
    provenance = result["provenance"]
    assert (provenance["mime_type"], provenance["caption_format"]) == (content_type, "subrip")
    assert provenance["source_url"] == url


@pytest.mark.parametrize(
    ("body", "caption_format", "text"),
    [
        (VTT, "webvtt", VTT_TEXT),
        ((DATA / "srt" / "ascii.srt").read_bytes(), "subrip", "ascii\noh look\nascii everywhere"),
    ],
)
async def test_caption_file_served_as_text_plain_is_sniffed(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    body: bytes,
    caption_format: str,
    text: str,
) -> None:
    url = serve(origin, "/captions.txt", body, "text/plain; charset=utf-8")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("ready", None, [])
    assert result["text"] == text
    provenance = result["provenance"]
    assert (provenance["mime_type"], provenance["caption_format"]) == ("text/plain", caption_format)
    assert provenance["content_kind"] == "published_caption_file"
    assert provenance["source_url"] == url
    assert evidence is not None


@pytest.mark.parametrize("content_type", ["text/plain; charset=utf-8", None])
async def test_plain_text_that_is_not_captions_is_unsupported_content(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, content_type: str | None
) -> None:
    """Decision: only `text/plain` *whose content is a caption file* is accepted (docs/product.md),
    so prose is `unsupported` / `unsupported_content`, not `invalid_captions` (which is for
    a file that claims a caption type). As for url_text, `source_url` is null because
    nothing usable was taken from it; `mime_type` still says what was served."""
    url = serve(
        origin, "/notes.txt", b"Meeting notes\n\n1. Tides\n2. Moon --> Earth\n", content_type
    )
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("unsupported", "unsupported_content", [])
    provenance = result["provenance"]
    assert provenance["source_url"] is None and provenance["content_kind"] == "none"
    assert provenance["caption_format"] is None
    assert provenance["mime_type"] == ("text/plain" if content_type else None)
    assert evidence is None


GB2312_TEXT = "宇宙守护神  保护我们远离邪恶"


@pytest.mark.parametrize(
    "content_type", ["application/x-subrip; charset=GB2312", "application/x-subrip"]
)
async def test_gb2312_subrip_decodes_with_and_without_a_declared_charset(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, content_type: str
) -> None:
    body = (DATA / "srt" / "gb2312.srt").read_bytes()
    url = serve(origin, "/gb.srt", body, content_type)
    result, _ = await retrieve(application, owner, url)
    assert outcome(result) == ("ready", None, [])
    assert segments(result)[0] == (27000, 30730, GB2312_TEXT)
    assert result["provenance"]["mime_type"] == "application/x-subrip"


@pytest.mark.parametrize("sample", SAMPLES + UTF16_SAMPLES, ids=lambda s: f"{s.language}-{s.codec}")
@pytest.mark.parametrize("content_type", ["application/x-subrip", "text/plain"])
async def test_subrip_in_every_encoding_without_a_declared_charset_is_ready(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    sample: Sample,
    content_type: str,
) -> None:
    """Real subtitle files declare no charset: Shift-JIS, GBK, Big5, EUC-KR, cp1251,
    cp1252 and UTF-16 (with its BOM) all read as the exact text."""
    url = serve(origin, f"/{sample.language}.srt", encoded(sample), content_type)
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("ready", None, [])
    assert segments(result) == sample.segments()
    assert result["text"] == "\n".join(sample.cues)
    assert result["provenance"]["caption_format"] == "subrip"
    assert evidence is not None


async def test_webvtt_is_utf8_whatever_charset_the_server_claims(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    """WebVTT is always UTF-8 (W3C file parsing: 'UTF-8 decode'); a wrong label must not
    turn 'Café' into mojibake."""
    body = "WEBVTT\n\n00:01.000 --> 00:02.000\nCafé crème\n".encode()
    url = serve(origin, "/latin.vtt", body, "text/vtt; charset=iso-8859-1")
    result, _ = await retrieve(application, owner, url)
    assert segments(result) == [(1000, 2000, "Café crème")]


async def test_language_header_is_the_declared_language_and_a_mismatch_is_empty(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    body = b"WEBVTT\nLanguage: de\n\n00:01.000 --> 00:02.000\nGuten Tag\n"
    url = serve(origin, "/de.vtt", body, "text/vtt")
    matched, _ = await retrieve(application, owner, url, language="de-DE")
    assert outcome(matched) == ("ready", None, [])
    assert matched["provenance"]["language"] == "de"
    assert matched["provenance"]["language_source"] == "publisher_declared"
    mismatched, evidence = await retrieve(application, owner, url, language="fr")
    assert outcome(mismatched) == ("empty", "language_mismatch", [])
    assert mismatched["provenance"]["language"] == "de"
    assert mismatched["provenance"]["source_url"] == url
    assert evidence is None


# --- outcome rules ----------------------------------------------------------------------


def cue_file(*cues: tuple[str, str, str]) -> bytes:
    return ("WEBVTT\n\n" + "".join(f"{a} --> {b}\n{t}\n\n" for a, b, t in cues)).encode()


async def test_valid_webvtt_without_cues_is_no_captions(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    url = serve(origin, "/none.vtt", b"WEBVTT - nothing yet\n\nNOTE to be captioned\n", "text/vtt")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("empty", "no_captions", [])
    assert result["provenance"]["caption_format"] == "webvtt"
    assert result["provenance"]["source_url"] == url
    assert evidence is None


async def test_every_cue_invalid_is_invalid_captions_with_invalid_cues_warning(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    body = (DATA / "wpt-file-parsing" / "timings-negative.vtt").read_bytes()  # end <= start
    url = serve(origin, "/negative.vtt", body, "text/vtt")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("empty", "invalid_captions", ["invalid_cues"])
    assert evidence is None


async def test_some_invalid_cues_are_dropped_and_the_rest_is_partial(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    body = cue_file(
        ("00:01.000", "00:02.000", "kept"),
        ("00:05.000", "00:04.000", "ends before it starts"),
        ("00:06.000", "00:06.000", "zero length"),
        ("00:07.000", "00:08.000", "<b> </b>"),
        ("00:09.000", "00:10.000", "also kept"),
    )
    url = serve(origin, "/some.vtt", body, "text/vtt")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("partial", "invalid_cues", [])
    assert segments(result) == [(1000, 2000, "kept"), (9000, 10000, "also kept")]
    assert result["text"] == "kept\nalso kept"
    assert evidence is not None


async def test_more_than_a_thousand_cues_keeps_exactly_the_first_thousand(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    lines = ["1"]
    for i in range(1200):
        lines.append(f"{i + 1}\n{_srt_time(i * 1000)} --> {_srt_time(i * 1000 + 900)}\ncue {i}\n")
    url = serve(origin, "/long.srt", "\n".join(lines[1:]).encode(), "application/x-subrip")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("partial", "cues_limited", [])
    assert len(result["segments"]) == 1000
    assert segments(result)[-1] == (999_000, 999_900, "cue 999")
    assert result["text"].splitlines() == [f"cue {i}" for i in range(1000)]
    assert evidence is not None


def _srt_time(ms: int) -> str:
    s, ms = divmod(ms, 1000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    return f"{h:02}:{m:02}:{s:02},{ms:03}"


@pytest.mark.parametrize(
    "body",
    [b"WEBVTTX\n\n00:01.000 --> 00:02.000\nx\n", b"\xef\xbb\xbf\xef\xbb\xbfWEBVTT\n", b"webvtt\n"],
    ids=["no separator", "two boms", "lower case"],
)
async def test_a_file_without_a_valid_signature_is_invalid_captions(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, body: bytes
) -> None:
    url = serve(origin, "/garbage.vtt", body, "text/vtt")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("empty", "invalid_captions", [])
    assert result["provenance"]["mime_type"] == "text/vtt"
    assert evidence is None


async def test_a_cue_longer_than_the_segment_bound_is_cut_with_text_limited(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    long_cue = " ".join(["word"] * 6000)  # 29,999 characters
    body = cue_file(("00:01.000", "00:02.000", long_cue), ("00:03.000", "00:04.000", "after"))
    url = serve(origin, "/long-cue.vtt", body, "text/vtt")
    result, _ = await retrieve(application, owner, url)
    assert outcome(result) == ("partial", "text_limited", [])
    first, second = result["segments"]
    assert 16_000 <= len(first["text"]) <= 20_000 and long_cue.startswith(first["text"])
    assert second["text"] == "after"
    assert len(result["text"]) <= 20_000


async def test_joined_text_over_the_bound_is_cut_but_every_segment_stays_whole(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    lines = [f"cue {i} " + "x" * 990 for i in range(30)]  # 30 cues of ~1,000 characters
    body = cue_file(*((f"00:{i:02}.000", f"00:{i:02}.500", line) for i, line in enumerate(lines)))
    url = serve(origin, "/wordy.vtt", body, "text/vtt")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("partial", "text_limited", [])
    assert [s["text"] for s in result["segments"]] == lines
    assert len(result["text"]) <= 20_000 and "\n".join(lines).startswith(result["text"])
    assert evidence is not None


@pytest.mark.parametrize("body_limit", [400])
async def test_a_caption_file_over_the_body_bound_keeps_the_cues_of_its_prefix(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, body_limit: int
) -> None:
    cues = [(f"00:{i:02}.000", f"00:{i:02}.500", f"line {i}") for i in range(40)]
    url = serve(origin, "/big.vtt", cue_file(*cues), "text/vtt")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("partial", "response_too_large", [])
    kept = segments(result)
    assert 5 < len(kept) < 40
    assert kept[:-1] == [(i * 1000, i * 1000 + 500, f"line {i}") for i in range(len(kept) - 1)]
    assert evidence is not None


# --- pages with <track> -----------------------------------------------------------------

TRACKS = (
    '<track kind=subtitles src="subs/fr.vtt" srclang=fr label="Français">',
    '<track kind=captions src="/media/en-us.vtt" srclang=en-US label="English" default>',
    '<track src="subs/en-gb.vtt" srclang=en-GB>',
    '<track kind=chapters src="subs/chapters.vtt" srclang=de>',
)


def caption_for(lang: str) -> bytes:
    return f"WEBVTT\n\n00:01.000 --> 00:02.000\nspoken in {lang}\n".encode()


def serve_lecture(origin: HTTPSOrigin, *tracks: str, head: str = TITLED) -> str:
    for path, lang in (
        ("/course/subs/fr.vtt", "fr"),
        ("/media/en-us.vtt", "en-US"),
        ("/course/subs/en-gb.vtt", "en-GB"),
        ("/course/subs/chapters.vtt", "de"),
    ):
        serve(origin, path, caption_for(lang), "text/vtt")
    return serve(origin, "/course/lecture", page(*tracks, head=head), "text/html; charset=utf-8")


@pytest.mark.parametrize(
    ("language", "path", "declared"),
    [
        (None, "/media/en-us.vtt", "en-US"),  # the default track
        ("fr", "/course/subs/fr.vtt", "fr"),  # exact
        ("EN-gb", "/course/subs/en-gb.vtt", "en-GB"),  # exact, case-insensitive
        ("en", "/media/en-us.vtt", "en-US"),  # prefix on a subtag boundary: first in order
    ],
)
async def test_page_track_is_chosen_by_language_and_fetched_through_the_gate(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    language: str | None,
    path: str,
    declared: str,
) -> None:
    url = serve_lecture(origin, *TRACKS)
    extra = {"language": language} if language else {}
    result, evidence = await retrieve(application, owner, url, **extra)
    assert outcome(result) == ("ready", None, [])
    assert segments(result) == [(1000, 2000, f"spoken in {declared}")]
    assert (result["title"], result["description"]) == ("Lecture 4", "Tides and the moon.")
    assert result["provenance"] | {"retrieved_at": None} == {
        "source_url": origin.url(path),
        "retrieved_at": None,
        "mime_type": "text/vtt",
        "parser_version": "research-public-retrieval/v1",
        "content_kind": "published_caption_file",
        "caption_format": "webvtt",
        "language": declared,
        "language_source": "publisher_declared",
        "platform_native_verified": False,
    }
    assert origin.hits["/course/lecture"] == 1 and origin.hits[path] == 1
    assert sum(origin.page_hits.values()) == 2
    assert evidence is not None


async def test_first_track_when_none_is_default_and_srclang_wins_over_the_file_header(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    serve(origin, "/a.vtt", b"WEBVTT\nLanguage: es\n\n00:01.000 --> 00:02.000\nhola\n", "text/vtt")
    serve(origin, "/b.vtt", caption_for("b"), "text/vtt")
    url = serve(
        origin,
        "/page",
        page('<track src="a.vtt" srclang="pt-BR">', '<track src="b.vtt">'),
        "text/html",
    )
    result, _ = await retrieve(application, owner, url)
    assert segments(result) == [(1000, 2000, "hola")]
    assert result["provenance"]["language"] == "pt-BR"
    assert origin.hits["/b.vtt"] == 0


async def test_track_without_srclang_takes_the_file_language_header(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    serve(origin, "/a.vtt", b"WEBVTT\nLanguage: es\n\n00:01.000 --> 00:02.000\nhola\n", "text/vtt")
    url = serve(origin, "/page", page('<track src="a.vtt">'), "text/html")
    result, _ = await retrieve(application, owner, url)
    assert outcome(result) == ("ready", None, [])
    assert result["provenance"]["language"] == "es"


async def test_en_gb_never_matches_en_us_and_no_track_is_fetched(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    url = serve_lecture(origin, TRACKS[1], TRACKS[0])
    result, evidence = await retrieve(application, owner, url, language="en-GB")
    assert outcome(result) == ("empty", "language_mismatch", [])
    assert (result["title"], result["description"]) == ("Lecture 4", "Tides and the moon.")
    provenance = result["provenance"]
    assert provenance["content_kind"] == "metadata_only"
    assert provenance["source_url"] == url and provenance["mime_type"] == "text/html"
    assert provenance["caption_format"] is None
    assert list(origin.page_hits) == ["/course/lecture"]
    assert evidence is None


async def test_a_regional_ask_matches_the_bare_language_track(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    serve(origin, "/en.srt", (DATA / "srt" / "ascii.srt").read_bytes(), "application/x-subrip")
    url = serve(
        origin,
        "/page",
        page('<track src="/media/en-us.vtt" srclang=en-US>', '<track src="en.srt" srclang=en>'),
        "text/html",
    )
    result, _ = await retrieve(application, owner, url, language="en-AU")
    assert outcome(result) == ("ready", None, [])
    provenance = result["provenance"]
    assert (provenance["source_url"], provenance["caption_format"]) == (
        origin.url("/en.srt"),
        "subrip",
    )
    assert (provenance["mime_type"], provenance["language"]) == ("application/x-subrip", "en")


async def test_source_url_is_the_caption_file_after_redirects(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    serve(origin, "/files/v2/en.vtt", VTT, "text/vtt")
    origin.routes["/go/en.vtt"] = Route(
        status=302, content_type=None, headers={"Location": "/files/v2/en.vtt"}
    )
    url = serve(origin, "/page", page('<track src="go/en.vtt" srclang=en>'), "text/html")
    result, _ = await retrieve(application, owner, url)
    assert outcome(result) == ("ready", None, [])
    assert result["provenance"]["source_url"] == origin.url("/files/v2/en.vtt")
    assert (origin.hits["/go/en.vtt"], origin.hits["/files/v2/en.vtt"]) == (1, 1)


async def test_chapters_track_is_not_a_caption_track(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    url = serve_lecture(origin, TRACKS[3])
    result, _ = await retrieve(application, owner, url, language="de")
    assert outcome(result) == ("empty", "no_captions", [])
    assert origin.hits["/course/subs/chapters.vtt"] == 0


async def test_page_without_tracks_is_no_captions_with_its_metadata(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    url = serve(origin, "/plain-page", page(head=TITLED), "text/html; charset=utf-8")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("empty", "no_captions", [])
    assert (result["title"], result["description"]) == ("Lecture 4", "Tides and the moon.")
    provenance = result["provenance"]
    assert provenance["content_kind"] == "metadata_only"
    assert (provenance["source_url"], provenance["mime_type"]) == (url, "text/html")
    assert (provenance["language"], provenance["language_source"]) == ("en", "publisher_declared")
    assert evidence is None


@pytest.mark.parametrize("body_limit", [400])
async def test_page_cut_at_the_body_bound_before_its_tracks_proves_no_absence(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, body_limit: int
) -> None:
    filler = "<p>" + "padding " * 100 + "</p>"
    url = serve(origin, "/long-page", page(filler, '<track src="late.vtt">'), "text/html")
    result, _ = await retrieve(application, owner, url)
    assert outcome(result) == ("unavailable", "response_too_large", [])
    assert origin.hits["/late.vtt"] == 0


async def test_page_without_tracks_or_metadata_is_no_captions_and_nothing_else(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    url = serve(origin, "/bare", b"<html><body><p>Hi</p></body></html>", None)
    result, _ = await retrieve(application, owner, url)
    assert outcome(result) == ("empty", "no_captions", [])
    assert (result["title"], result["description"]) == (None, None)
    assert result["provenance"]["content_kind"] == "none"
    assert result["provenance"]["language"] is None


async def test_track_file_that_is_broken_reports_the_track_not_the_page(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    serve(origin, "/bad.vtt", b"not a caption file", "text/vtt")
    url = serve(origin, "/page", page('<track src="bad.vtt" srclang=en>', head=TITLED), "text/html")
    result, _ = await retrieve(application, owner, url)
    assert outcome(result) == ("empty", "invalid_captions", [])
    assert result["provenance"]["source_url"] == origin.url("/bad.vtt")
    assert result["provenance"]["mime_type"] == "text/vtt"


async def test_missing_track_file_is_not_found(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    url = serve(origin, "/page", page('<track src="gone.vtt">', head=TITLED), "text/html")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("unavailable", "not_found", [])
    assert result["provenance"]["source_url"] is None
    assert (result["title"], evidence) == (None, None)
    assert origin.hits["/gone.vtt"] == 1


@pytest.mark.parametrize(
    "src",
    [
        "https://10.0.0.1/x.vtt",
        "https://169.254.169.254/latest/x.vtt",
        "http://origin.test:{port}/x.vtt",
        "https://{internal}:{port}/x.vtt",
        "https://origin.test:{canary}/x.vtt",
    ],
)
async def test_track_pointing_at_a_blocked_address_is_blocked_without_a_request(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    canary: Canary,
    guard: DialGuard,
    src: str,
) -> None:
    """http, private and metadata addresses, a name resolving to loopback outside the
    allow rule, and a port outside the allowed ones (where the canary listens) are all
    refused before any dial: the guard records no stray and the canary sees nothing."""
    track_url = src.format(port=origin.port, internal=INTERNAL, canary=canary.port)
    url = serve(origin, "/page", page(f'<track src="{track_url}">', head=TITLED), "text/html")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("blocked", "unsafe_url", [])
    assert result["provenance"]["source_url"] is None
    assert (result["title"], result["text"], evidence) == (None, "", None)
    assert list(origin.page_hits) == ["/page"]  # and robots.txt, on its own connection
    assert set(guard.dials) == {("127.0.0.1", origin.port)}
    assert origin.connections == len(guard.dials)


@pytest.mark.parametrize(
    ("src", "path"),
    [
        ("my subs/en cc.vtt", "/course/my%20subs/en%20cc.vtt"),
        ("sous-titres/français.vtt", "/course/sous-titres/fran%C3%A7ais.vtt"),
        ("/st/\u5b57\u5e55.vtt?v=a b", "/st/%E5%AD%97%E5%B9%95.vtt"),
        ("subs\\en.vtt", "/course/subs/en.vtt"),  # WHATWG: a backslash is a slash
        ("100%.vtt", "/course/100%25.vtt"),
    ],
)
async def test_track_src_with_spaces_or_non_ascii_is_percent_encoded(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, src: str, path: str
) -> None:
    serve(origin, path, caption_for("x"), "text/vtt")
    url = serve(origin, "/course/page", page(f'<track src="{src}">'), "text/html")
    result, _ = await retrieve(application, owner, url)
    assert outcome(result) == ("ready", None, [])
    source_url = result["provenance"]["source_url"]
    assert source_url.startswith(origin.url(path))
    assert source_url.isascii() and " " not in source_url
    assert origin.hits[path] == 1


async def test_a_track_url_longer_than_the_contract_allows_is_unsupported_source(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    path = "/" + "a" * 2100 + ".vtt"
    serve(origin, path, VTT, "text/vtt")
    url = serve(origin, "/page", page(f'<track src="{path}">'), "text/html")
    result, evidence = await retrieve(application, owner, url)
    assert outcome(result) == ("unsupported", "unsupported_source", [])
    assert result["provenance"]["source_url"] is None and evidence is None


# --- replay and evidence ----------------------------------------------------------------


async def test_replay_never_fetches_again_and_same_captions_reuse_the_revision(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    url = serve_lecture(origin, *TRACKS)
    arguments = args(workspace_id, url, language="fr")
    first = await call(application, token, arguments)
    assert await call(application, token, arguments) == first
    again = await call(application, token, args(workspace_id, url, language="fr"))
    assert again["evidence"] == first["evidence"]
    assert origin.hits["/course/subs/fr.vtt"] == 2 and origin.hits["/course/lecture"] == 2
    serve(origin, "/course/subs/fr.vtt", caption_for("fr, revised"), "text/vtt")
    revised = await call(application, token, args(workspace_id, url, language="fr"))
    assert revised["evidence"]["evidence_id"] == first["evidence"]["evidence_id"]
    assert revised["evidence"]["revision"] == 2
    with application.store.db.read() as conn:
        total = conn.execute(sa.select(sa.func.count()).select_from(evidence_revisions))
        assert total.scalar_one() == 2
    english = await call(application, token, args(workspace_id, url, language="en"))
    assert english["evidence"]["evidence_id"] != first["evidence"]["evidence_id"]


async def test_a_caption_file_keeps_one_revision_by_either_path(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    """Read directly, then through a page's <track>, then directly again: the same text,
    so one revision; its title is the file's own (none), the page's stays on the receipt."""
    direct = serve(origin, "/talk.vtt", b"WEBVTT\n\n00:01.000 --> 00:02.000\nhello\n", "text/vtt")
    url = serve(origin, "/talk", page('<track src="talk.vtt" srclang=en>', head=TITLED), None)
    origin.routes["/talk.vtt"].headers["Content-Language"] = "en"
    refs = []
    for read in (direct, url, direct, url):
        result, ref = await retrieve(application, owner, read)
        assert outcome(result) == ("ready", None, [])
        refs.append((ref["evidence_id"], ref["revision"]))
        expected = ("Lecture 4", "Tides and the moon.") if read == url else (None, None)
        assert (result["title"], result["description"]) == expected
    assert len(set(refs)) == 1 and refs[0][1] == 1
    workspace_id, token = owner
    outcome_ = await application.research.call(
        "sosoapi_research_evidence_get",
        token,
        {"workspace_id": workspace_id, "evidence_id": refs[0][0]},
        transport="stdio",
    )
    kept = outcome_.output.wire()["evidence"]
    assert (kept["title"], kept["description"], kept["latest_revision"]) == (None, None, 1)
