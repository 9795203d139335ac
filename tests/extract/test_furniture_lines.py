"""Furniture lines (closing calls to action, photo credits, datelines) go; prose stays."""

from __future__ import annotations

import pytest

from sosoapi.extract.furniture_lines import drop_furniture_lines
from sosoapi.extract.html import extract_text_document

BODY = [
    "The council voted on Tuesday to close the old bridge for repairs until the spring.",
    "Engineers found corrosion in two of the steel girders during a routine inspection.",
    "Traffic will be diverted over the northern crossing, adding about ten minutes.",
]


@pytest.mark.parametrize(
    "call",
    [
        "Subscribe now to our eNATION edition for the full story.",
        "Siguenos en Telegram, Instagram, Facebook y Twitter para recibir las noticias.",
        "Do you want to be informed of our actions? Sign up here",
        "Lust auf mehr? Lass dir die besten Storys jede Woche schicken.",
        "Zapraszamy też do subskrypcji tygodnika i oglądania naszych programów.",
        "Pour lire la suite et accéder à 3 articles par mois, créez votre compte.",
        "Stay up-to-date on our work.",
        "Get the latest news on your phone with the Consortium reader.",
    ],
)
def test_a_short_call_to_action_after_the_text_is_dropped(call: str) -> None:
    text = "\n\n".join([*BODY, call])
    assert drop_furniture_lines(text) == "\n\n".join(BODY)


def test_a_call_among_the_last_paragraphs_goes_and_the_paragraphs_around_it_stay() -> None:
    call = "Get the latest news straight to your phone: download the app."
    text = "\n\n".join([*BODY[:2], call, BODY[2]])
    assert drop_furniture_lines(text) == "\n\n".join(BODY)


def test_a_closing_thanks_for_support_stays_and_a_plea_for_support_goes() -> None:
    thanks = "Vielen Dank an die S-Bahn Berlin, die mich für dieses Video unterstützt hat."
    plea = "Unterstützen Sie unseren Journalismus mit einem Abo."
    text = "\n\n".join([*BODY, thanks, plea])
    assert drop_furniture_lines(text) == "\n\n".join([*BODY, thanks])


def test_the_same_words_early_in_a_long_text_stay() -> None:
    early = "Residents can subscribe to text alerts about the closure."
    body = [early, *(f"{line} ({n})" for n in range(3) for line in BODY)]
    text = "\n\n".join(body)
    assert drop_furniture_lines(text) == text


def test_a_long_paragraph_about_newsletters_stays() -> None:
    long = (
        "The newsletter, which the council started in 2019, now reaches 40,000 homes; "
        "officials say it is the main way residents hear about road works, and they plan to "
        "subscribe every new household automatically from next year, which privacy groups "
        "have criticised as an overreach by the municipal authority."
    )
    assert len(long) > 250
    text = "\n\n".join([*BODY, long])
    assert drop_furniture_lines(text) == text


def test_a_text_that_is_only_a_call_is_kept_whole() -> None:
    assert drop_furniture_lines("Subscribe to our newsletter") == "Subscribe to our newsletter"


def test_the_pipeline_drops_the_closing_call() -> None:
    paragraphs = "".join(f"<p>{line}</p>" for line in BODY * 3)
    markup = (
        "<html><body><article>"
        f"{paragraphs}<p>Follow us on Telegram for breaking news.</p>"
        "</article></body></html>"
    ).encode()
    document = extract_text_document(
        markup, media_type="text/html", charset=None, content_language=None
    )
    assert document is not None
    assert document.text.endswith(BODY[2]) and "Telegram" not in document.text


@pytest.mark.parametrize(
    "credit",
    [
        "Marco Odermatt, Ski-Star aus der Schweiz. © AFP / MARCO BERTORELLO",
        "Golf im TV: die Übertragungszeiten im Überblick. (Foto: Getty)",
        "Photograph by Ed Marshall, Redonda Restoration Programme",
        "(Credit: Clayton Aldern / Grist)",
    ],
)
def test_a_short_photo_credit_anywhere_is_dropped(credit: str) -> None:
    text = "\n\n".join([BODY[0], credit, *BODY[1:]])
    assert drop_furniture_lines(text) == "\n\n".join(BODY)


@pytest.mark.parametrize(
    "dateline", ["7. oktober 2020", "Stand: 05. Februar 2020", "March 3, 2021"]
)
def test_a_dateline_at_the_start_is_dropped(dateline: str) -> None:
    text = "\n\n".join([dateline, *BODY])
    assert drop_furniture_lines(text) == "\n\n".join(BODY)


def test_a_date_inside_the_text_stays() -> None:
    text = "\n\n".join([*BODY, "The bridge reopens on 7 April 2027.", BODY[0]])
    assert drop_furniture_lines(text) == text


@pytest.mark.parametrize(
    "label",
    [
        "Mehr zum Thema",
        "Read more: the bridge in 1990",
        "See also",
        "Vorschau auf den nächsten Artikel",
        "Next article: the bridge reopens",
    ],
)
def test_a_label_for_other_stories_is_dropped(label: str) -> None:
    text = "\n\n".join([*BODY[:2], label, BODY[2]])
    assert drop_furniture_lines(text) == "\n\n".join(BODY)


@pytest.mark.parametrize("label", ["Über Luis Holuch", "Autoreninfo", "About the author"])
def test_an_author_label_near_the_end_cuts_the_bio_after_it(label: str) -> None:
    bio = "Luis has reported on ski jumping since 2010 and studied sports journalism."
    text = "\n\n".join([*BODY, label, bio])
    assert drop_furniture_lines(text) == "\n\n".join(BODY)


def test_an_author_label_early_in_a_long_text_stays() -> None:
    body = [*BODY, "Zur Person", *BODY, *BODY, *BODY]
    text = "\n\n".join(body)
    assert drop_furniture_lines(text) == text


@pytest.mark.parametrize(
    "notice",
    [
        "Für Links auf dieser Seite erhält die Redaktion ggf. eine Provision vom Händler.",
        "This post contains affiliate links; we may earn a commission on purchases.",
        "Wir respektieren deine Privatsphäre und stellen ohne dein Einverständnis keine "
        "Verbindung zu Instagram her.",
    ],
)
def test_an_affiliate_or_embed_consent_notice_anywhere_is_dropped(notice: str) -> None:
    text = "\n\n".join([BODY[0], notice, *BODY[1:]])
    assert drop_furniture_lines(text) == "\n\n".join(BODY)


@pytest.mark.parametrize(
    "widget",
    [
        "War der Artikel nützlich?",
        "Möchten Sie den Artikel teilen?",
        "Keine Kommentare",
        "Ten tekst przeczytasz w 4 minuty",
        "Lesezeit: 3 Minuten",
    ],
)
def test_a_widget_label_is_dropped(widget: str) -> None:
    text = "\n\n".join([*BODY, widget])
    assert drop_furniture_lines(text) == "\n\n".join(BODY)
