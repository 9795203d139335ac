"""`<track>` discovery on pages and the choice of one track by language."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sosoapi.extract.limits import DESCRIPTION_MAX, TITLE_MAX
from sosoapi.extract.tracks import choose_track, find_tracks
from sosoapi.extract.types import Track

PAGE = "https://media.example/talks/page.html"


def track(srclang: str | None, default: bool = False, name: str = "t") -> Track:
    return Track(
        src=f"https://m.example/{name}.vtt",
        kind="subtitles",
        srclang=srclang,
        label=None,
        default=default,
    )


def test_finds_caption_and_subtitle_tracks_in_document_order() -> None:
    html = """<!doctype html><html lang="en_GB"><head><title> A   talk </title></head><body>
      <video src=v.mp4>
        <track src="en.vtt" srclang="en" label=" English " default>
        <track kind="CAPTIONS" src="cc.vtt" srclang="en-US">
        <track kind="chapters" src="ch.vtt">
        <track kind="descriptions" src="d.vtt">
        <track kind="metadata" src="m.vtt">
      </video>
      <audio><track kind="subtitles" src="/abs/fr.srt" srclang="fr"></audio>
      <p><track src="https://cdn.example/loose.vtt"></p>
    </body></html>"""
    page = find_tracks(html, PAGE)
    assert [(t.src, t.kind, t.srclang, t.label, t.default) for t in page.tracks] == [
        ("https://media.example/talks/en.vtt", "subtitles", "en", "English", True),
        ("https://media.example/talks/cc.vtt", "captions", "en-US", None, False),
        ("https://media.example/abs/fr.srt", "subtitles", "fr", None, False),
        ("https://cdn.example/loose.vtt", "subtitles", None, None, False),
    ]
    assert (page.title, page.description, page.language) == ("A talk", None, "en-GB")


@pytest.mark.parametrize(
    "kind",
    ['kind=""', 'kind="subtitle"', 'kind="caption"', 'kind=" captions"', "kind=foo", "kind"],
)
def test_invalid_kind_is_metadata_and_not_a_caption_track(kind: str) -> None:
    # HTML: the invalid value default of `kind` is the metadata state (empty included).
    assert find_tracks(f"<video><track {kind} src=a.vtt></video>", PAGE).tracks == ()


def test_base_href_is_resolved_against_the_page_and_used_for_tracks() -> None:
    html = '<head><base href="/captions/"><base href="https://other.example/"></head>' + (
        '<video><track src="a.vtt"><track src="  b.vtt\n"></video>'
    )
    assert [t.src for t in find_tracks(html, PAGE).tracks] == [
        "https://media.example/captions/a.vtt",
        "https://media.example/captions/b.vtt",
    ]


@pytest.mark.parametrize(
    "src",
    [
        'src=""',
        "",
        'src="   "',
        'src="javascript:alert(1)"',
        'src="data:text/vtt,WEBVTT"',
        'src="http://[::1"',
    ],
)
def test_tracks_without_a_fetchable_source_are_skipped(src: str) -> None:
    assert find_tracks(f"<video><track {src}></video>", PAGE).tracks == ()


def test_metadata_prefers_open_graph_title_and_meta_description() -> None:
    html = (
        "<html lang='zz-1234567890-toolongtoolongtoolongtoolong'><head><title>Plain</title>"
        "<meta property='og:title' content='  OG   title '>"
        "<meta property='og:description' content='og desc'>"
        "<meta name='Description' content='meta   desc'></head></html>"
    )
    page = find_tracks(html, PAGE)
    assert (page.title, page.description, page.language) == ("OG title", "meta desc", None)


def test_metadata_falls_back_and_is_bounded() -> None:
    html = (
        "<title>" + "t " * 500 + "</title><meta name=description content=' '>"
        "<meta property=og:description content='" + "d " * 3000 + "'>"
    )
    page = find_tracks(html, PAGE)
    assert page.title is not None and len(page.title) <= TITLE_MAX and page.title.endswith("…")
    assert page.description is not None and len(page.description) <= DESCRIPTION_MAX


def test_page_without_tracks_or_metadata() -> None:
    page = find_tracks("<p>hello</p>", PAGE)
    assert (page.tracks, page.title, page.description, page.language) == ((), None, None, None)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_markup_never_raises(noise: str) -> None:
    page = find_tracks(f"<video>{noise}<track src='{noise}'></video>{noise}", PAGE)
    assert all(t.src.startswith(("http://", "https://")) for t in page.tracks)


TRACKS = [
    track("en-GB", name="gb"),
    track("EN-us", default=True, name="us"),
    track("en", name="en"),
    track("fr-CA", name="frca"),
    track(None, name="none"),
]


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en-us", "us"),  # exact, case-insensitive, wins over the earlier prefix match
        ("EN", "en"),  # exact beats the earlier en-GB prefix match
        ("en-GB", "gb"),
        ("en-AU", "en"),  # en-AU ~ en by prefix; never en-GB or en-US
        ("fr", "frca"),  # prefix on a subtag boundary
        ("fr-CA-x-y", "frca"),
        ("de", None),
        ("e", None),  # not a subtag boundary
    ],
)
def test_choose_track_by_language(language: str, expected: str | None) -> None:
    chosen = choose_track(TRACKS, language)
    assert (chosen.src.rsplit("/", 1)[1][:-4] if chosen else None) == expected


def test_region_tags_never_cross_match() -> None:
    assert choose_track([track("en-GB")], "en-US") is None


def test_without_language_default_then_first() -> None:
    assert choose_track(TRACKS, None) is TRACKS[1]
    assert choose_track(TRACKS[2:], None) is TRACKS[2]
    assert choose_track([], None) is None
    assert choose_track([], "en") is None


def test_a_track_past_the_node_bound_is_not_read() -> None:
    """A caption page is parsed within the bounds of every page (extract/html_bounds.py):
    a formatting element left open in each of 300 paragraphs makes 90,000 elements, past
    the node bound, and the track after them is never parsed."""
    clones = "<p>" + "".join(f"<b class=c{n}>" for n in range(300)) + "<p>x" * 300
    html = f"<video><track src=first.vtt></video>{clones}<video><track src=late.vtt></video>"
    assert [t.src for t in find_tracks(html, PAGE).tracks] == [
        "https://media.example/talks/first.vtt"
    ]


def test_a_track_in_noscript_is_read_as_a_browser_without_scripts_reads_it() -> None:
    html = "<noscript><video><track src=fallback.vtt></video></noscript>"
    assert [t.src for t in find_tracks(html, PAGE).tracks] == [
        "https://media.example/talks/fallback.vtt"
    ]
