"""Languages match by BCP 47 with macrolanguages, for pages and caption tracks, and the
result says which declared tag matched and by which rule (MCP `_meta`, content line)."""

from __future__ import annotations

from typing import Any

from sosoapi.application import Application
from sosoapi.mcp.server import LANGUAGE_MATCH_META, success_result
from sosoapi.research.operation import Outcome
from tests.support.calls import RETRIEVE, args
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route

# A Norwegian news page as NRK publishes it: `<html lang="nb-NO">`.
NRK_STYLE = """<!doctype html><html lang="nb-NO"><head><meta charset="utf-8">
<title>Flom i Gudbrandsdalen</title></head><body><article><h1>Flom i Gudbrandsdalen</h1>
<p>Vannstanden i Lågen steg med nesten to meter i løpet av natten, og flere veier i
Gudbrandsdalen er stengt. Kommunen har satt krisestab og ber folk holde seg unna elvebredden.</p>
<p>Ifølge NVE kan flommen nå toppen i morgen ettermiddag. Beboere langs elva er bedt om å
flytte verdisaker opp fra kjelleren og følge med på varsler fra kommunen.</p>
<p>Statens vegvesen opplyser at riksvei 15 er stengt ved Otta, og at omkjøring er skiltet.
Togtrafikken på Dovrebanen går som normalt, men med redusert hastighet.</p>
</article></body></html>""".encode()

ARABIC_VTT = "WEBVTT\n\n00:01.000 --> 00:03.000\nمرحبا بكم في نشرة الأخبار\n".encode()
NORWEGIAN_VTT = "WEBVTT\n\n00:01.000 --> 00:03.000\nGod kveld, og velkommen til Dagsrevyen\n"


async def retrieve(app: Application, token: str, arguments: dict[str, str]) -> Outcome:
    outcome = await app.research.call(RETRIEVE, token, arguments, transport="http")
    assert_valid_output(RETRIEVE, outcome.output.wire())
    return outcome


def result_of(outcome: Outcome) -> dict[str, Any]:
    result: dict[str, Any] = outcome.output.wire()["retrieval"]["result"]
    return result


async def read_nrk_style_page(
    app: Application, owner: tuple[str, str], origin: HTTPSOrigin, language: str
) -> tuple[str, Outcome]:
    workspace_id, token = owner
    origin.routes["/nyheter/flom"] = Route(NRK_STYLE, content_type="text/html; charset=utf-8")
    url = origin.url("/nyheter/flom")
    return url, await retrieve(app, token, args(workspace_id, url, language=language))


async def test_no_asked_of_a_page_declaring_nb_no_is_ready_and_says_it_matched(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    url, outcome = await read_nrk_style_page(application, owner, origin, "no")
    result = result_of(outcome)
    assert (result["status"], result["reason"], result["warnings"]) == ("ready", None, [])
    assert result["provenance"]["language"] == "nb-NO"
    found = outcome.language_match
    assert found is not None and (found.asked, found.matched, found.by) == (
        "no",
        "nb-NO",
        "macrolanguage",
    )
    mcp_result = success_result(outcome, url)
    assert mcp_result.meta == {
        LANGUAGE_MATCH_META: {"asked": "no", "matched": "nb-NO", "by": "macrolanguage"}
    }
    line = mcp_result.content[0].text.partition("\n")[0]  # type: ignore[union-attr]
    assert "language no matched nb-NO by macrolanguage" in line


async def test_a_sibling_language_is_still_a_mismatch_and_names_no_match(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    url, outcome = await read_nrk_style_page(application, owner, origin, "nn")
    result = result_of(outcome)
    assert (result["status"], result["reason"]) == ("partial", "language_mismatch")
    assert outcome.language_match is None
    assert success_result(outcome, url).meta is None


async def test_caption_tracks_match_srclang_by_macrolanguage(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    origin.routes["/tv/ar.vtt"] = Route(ARABIC_VTT, content_type="text/vtt")
    origin.routes["/tv/nb.vtt"] = Route(NORWEGIAN_VTT.encode(), content_type="text/vtt")
    tracks = (
        '<track kind=captions src="/tv/ar.vtt" srclang="arb">'
        '<track kind=subtitles src="/tv/nb.vtt" srclang="nb-NO" default>'
    )
    page = f"<!doctype html><html><body><video src=/tv/film.mp4>{tracks}</video></body></html>"
    origin.routes["/tv/program"] = Route(page.encode(), content_type="text/html")
    url = origin.url("/tv/program")
    for asked, path, declared in (("ar", "/tv/ar.vtt", "arb"), ("no", "/tv/nb.vtt", "nb-NO")):
        arguments = args(workspace_id, url, kind="published_captions", language=asked)
        outcome = await retrieve(application, token, arguments)
        result = result_of(outcome)
        assert (result["status"], result["reason"]) == ("ready", None)
        assert result["provenance"]["source_url"] == origin.url(path)
        assert result["provenance"]["language"] == declared
        found = outcome.language_match
        assert found is not None and (found.matched, found.by) == (declared, "macrolanguage")
