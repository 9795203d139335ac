"""Our Lexbor extractor's rules on hand-made pages: container choice, pruning, short blocks."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from sosoapi.extract import html as html_module
from sosoapi.extract.html import extract_text_document
from sosoapi.extract.html_bounds import BoundedMarkup
from sosoapi.extract.html_main import extract_main

PROSE = [
    "The committee met on Tuesday to review the draft budget, which raises spending on "
    "schools and clinics while trimming the road maintenance programme for next year.",
    "Several members asked for a clearer account of how the savings would be achieved, "
    "noting that previous estimates had proved far too optimistic in practice.",
    "A final vote is expected next month, after a public consultation that will run for "
    "four weeks and include meetings in each of the district's seven towns.",
    "Officials said the consultation documents would be published online and in print at "
    "libraries, with translations available on request from the council offices.",
]
COMMENT = (
    "Reader comment: I have lived here for thirty years and never seen a budget this "
    "careless with public money, frankly it is a scandal and someone should resign."
)


def text_of(body: str) -> str:
    markup = f"<html><head><meta charset='utf-8'></head><body>{body}</body></html>"
    return extract_main(LexborHTMLParser(markup)).text


def paragraphs(items: list[str]) -> str:
    return "".join(f"<p>{item}</p>" for item in items)


def test_an_article_inside_a_comment_thread_is_not_the_container() -> None:
    # Each comment is an <article> long enough to be a container by the selector alone.
    comments = "".join(
        f"<li><article class='comment-body'><p>{COMMENT * 3} ({n})</p></article></li>"
        for n in range(3)
    )
    text = text_of(
        f"<div class='story'><h1>Budget review</h1>{paragraphs(PROSE)}</div>"
        f"<ol class='comment-list'>{comments}</ol>"
    )
    assert all(p in text for p in PROSE)
    assert "Reader comment" not in text


def test_a_word_like_sidebar_inside_a_class_token_does_not_mark_furniture() -> None:
    teaser = "Short teaser text for another story. " * 12
    text = text_of(
        f"<div class='layout has-sidebar'><article>{paragraphs(PROSE * 8)}</article></div>"
        f"<div class='promo'><article><p>{teaser}</p></article></div>"
    )
    assert all(p in text for p in PROSE)
    assert "Short teaser" not in text


def test_a_furniture_class_holding_most_of_the_prose_is_kept() -> None:
    # Blogger wraps the post in class="widget Blog" and writes paragraphs with <br>; the
    # archive widgets beside it hold more text together, all of it links.
    post = "<br><br>".join(PROSE)
    archive = " ".join(f"<a href='/{n}'>Archive entry for week {n:02d}</a>" for n in range(20))
    text = text_of(
        "<div class='content'><div class='widget Header'><a href='/'>My blog</a></div>"
        f"<div class='widget Blog'><div class='entry'>{post}</div></div>"
        f"<div class='widget Archive'>{archive}</div><div class='widget Old'>{archive}</div>"
        "</div>"
    )
    assert all(p in text for p in PROSE)
    assert "Archive entry" not in text


def test_short_headings_and_lines_after_the_last_paragraph_are_trimmed() -> None:
    text = text_of(
        f"<article><h2>Budget review</h2>{paragraphs(PROSE)}"
        "<h3>More on this topic</h3><p>Share this article</p></article>"
    )
    assert text.startswith("Budget review")
    assert PROSE[-1] in text
    assert "More on this topic" not in text
    assert "Share this article" not in text


def test_a_short_heading_between_paragraphs_is_kept() -> None:
    text = text_of(
        f"<article>{paragraphs(PROSE[:2])}<h3>What happens next</h3>"
        f"{paragraphs(PROSE[2:])}</article>"
    )
    assert "What happens next" in text


def test_a_short_paragraph_next_to_a_link_list_is_dropped() -> None:
    links = "".join(f"<p><a href='/s/{n}'>Another story headline number {n}</a></p>" for n in "abc")
    text = text_of(
        f"<article>{paragraphs(PROSE)}<p>You may also like:</p>{links}"
        f"<p>{PROSE[0][:40]}</p>{paragraphs(PROSE[:1])}</article>"
    )
    assert "You may also like" not in text
    assert "Another story" not in text


def test_a_short_paragraph_between_paragraphs_is_kept() -> None:
    text = text_of(f"<article>{paragraphs(PROSE[:2])}<p>It was not.</p>{paragraphs(PROSE[2:])}")
    assert "It was not." in text


def test_a_container_holding_little_of_the_prose_is_not_confident() -> None:
    small = "<article><p>" + "Short teaser text for another story. " * 12 + "</p></article>"
    markup = f"<html><body>{small}<div class='x'>{paragraphs(PROSE * 3)}</div></body></html>"
    result = extract_main(LexborHTMLParser(markup))
    assert result.container_share < 0.5
    assert not result.confident


def test_a_full_article_is_confident() -> None:
    markup = f"<html><body><nav><a href='/'>Home</a></nav><article>{paragraphs(PROSE * 2)}"
    result = extract_main(LexborHTMLParser(markup + "</article></body></html>"))
    assert result.confident


@pytest.mark.parametrize("confident", [True, False])
def test_hybrid_runs_trafilatura_only_when_ours_is_unsure(
    monkeypatch: pytest.MonkeyPatch, confident: bool
) -> None:
    calls: list[str] = []

    def fake_trafilatura(page: BoundedMarkup, *, url: str | None = None) -> str:
        calls.append(page.markup)
        return "fallback text"

    monkeypatch.setattr(html_module, "trafilatura_text", fake_trafilatura)
    if confident:
        body = f"<article>{paragraphs(PROSE * 2)}</article>"
    else:
        teaser = "<article><p>" + "Short teaser text for another story. " * 12 + "</p></article>"
        body = f"{teaser}<div class='x'>{paragraphs(PROSE * 3)}</div>"
    doc = extract_text_document(
        f"<html><body>{body}</body></html>".encode(),
        media_type="text/html",
        charset=None,
        content_language=None,
        extractor="hybrid",
    )
    assert doc is not None
    assert (doc.text == "fallback text") is not confident
    assert len(calls) == (0 if confident else 1)


LEAD = (
    "The council has approved a budget that raises school spending by a tenth, the first "
    "rise in six years, after a debate that ran late into the night."
)


def test_a_lead_before_the_article_body_is_merged() -> None:
    # The lead sits in a sibling of the article-body container's parent, as news sites
    # print a teaser above the body; the link list beside it is not merged.
    related = "".join(f"<a href='/r/{n}'>Related story headline number {n} today</a>" for n in "ab")
    text = text_of(
        "<div class='article'><header><h1>Budget passed</h1>"
        f"<div class='teaser'><p>{LEAD}</p></div><p>{related}</p></header>"
        f"<div class='row'><div class='article-body'>{paragraphs(PROSE)}</div></div></div>"
    )
    assert text.index(LEAD) < text.index(PROSE[0])
    assert "Related story" not in text


def test_a_lead_outside_a_much_bigger_ancestor_is_not_merged() -> None:
    # Text before the container in an ancestor far bigger than the container is another
    # part of the page (a list of other stories), not its lead.
    others = "".join(f"<li>{PROSE[n % 4]} Other story {n}.</li>" for n in range(12))
    text = text_of(
        f"<div class='page'><p>{LEAD}</p><ul>{others}</ul>"
        f"<div class='article-body'>{paragraphs(PROSE)}</div></div>"
    )
    assert all(p in text for p in PROSE)
    assert LEAD[:90] not in text


@pytest.mark.parametrize(
    "before",
    # A paragraph with 40 % linked text passes the block filter but is not a lead.
    [
        f"<div class='sidebar'><p>{LEAD}</p></div>",
        f"<p>{LEAD[:90]}<a href='/x'>{LEAD[90:]}</a></p>",
        # An image caption above the body is named like furniture on the paragraph itself.
        f"<p class='wp-caption-text'>{LEAD}</p>",
    ],
    ids=["furniture", "links", "caption"],
)
def test_a_lead_in_furniture_or_made_of_links_is_not_merged(before: str) -> None:
    text = text_of(
        f"<div class='story'>{before}<div class='article-body'>{paragraphs(PROSE * 2)}</div></div>"
    )
    assert all(p in text for p in PROSE)
    assert LEAD[:90] not in text


def test_ruby_readings_are_left_out_and_the_text_is_nfc() -> None:
    # Easy-Japanese news prints the reading over each kanji; a query has the kanji alone.
    # The decomposed "e" + combining acute becomes one precomposed character.
    ruby = (
        "<ruby>子<rt>こ</rt></ruby>どもへの<ruby>虐待<rp>(</rp><rt>ぎゃくたい</rt><rp>)</rp></ruby>"
    )
    text = text_of(
        f"<article>{paragraphs(PROSE[:1])}<p>{ruby}をなくす。Cafe\u0301.</p>{paragraphs(PROSE[1:])}</article>"
    )
    assert "子どもへの虐待をなくす。" in text
    assert "Caf\u00e9." in text


def test_a_page_frame_named_like_a_dialog_is_not_furniture() -> None:
    # Drupal wraps the whole page in class="dialog-off-canvas-main-canvas"; the intro
    # above the article body is still the article's lead.
    text = text_of(
        "<div class='dialog-off-canvas-main-canvas'><section class='top'>"
        f"<div class='intro-text'><p>{LEAD}</p></div></section>"
        f"<main><article><section class='article-full__content'>{paragraphs(PROSE)}"
        "</section></article></main></div>"
    )
    assert text.index(LEAD) < text.index(PROSE[0])


def test_a_lead_printed_in_a_bare_div_is_merged() -> None:
    # Templates print the standfirst as text in a <div> (no <p>), beside the body container.
    text = text_of(
        f"<div class='article'><h1>Budget passed</h1><div class='intro'><b>Town hall</b> {LEAD}"
        f"</div><div class='article-body'>{paragraphs(PROSE)}</div></div>"
    )
    assert text.index(LEAD) < text.index(PROSE[0])


@pytest.mark.parametrize("box", ["author-box", "editorial-disclosure"])
def test_an_author_or_disclosure_box_inside_the_article_is_pruned(box: str) -> None:
    note = (
        "Jane Doe covers local politics for the Gazette and has reported on the council "
        "for twelve years; this post may contain links from which the Gazette earns money."
    )
    text = text_of(
        f"<article><div class='article-body'>{paragraphs(PROSE)}"
        f"<div class='{box}'><p>{note}</p></div></div></article>"
    )
    assert PROSE[-1] in text
    assert "Jane Doe" not in text


def test_a_captcha_notice_inside_the_article_is_pruned() -> None:
    # A review form's captcha under a shop's product text (`captcha--notice`).
    notice = "Please enter the sequence of digits shown below into the text field before you send."
    text = text_of(
        f"<article><div class='article-body'>{paragraphs(PROSE)}"
        f"<form><div class='review--captcha'><p>{notice}</p></div></form></div></article>"
    )
    assert PROSE[-1] in text
    assert "sequence of digits" not in text


def test_a_post_metadata_line_inside_the_post_is_pruned() -> None:
    # WordPress themes print "This entry was posted on ... in ..." in class="postmetadata".
    meta = (
        "Der Beitrag wurde am Mittwoch, den 27. November 2019 um 15:21 Uhr veröffentlicht "
        "und wurde unter Allgemein abgelegt. Du kannst die Kommentare verfolgen."
    )
    text = text_of(
        f"<div class='post'><div class='entry'>{paragraphs(PROSE)}"
        f"<p class='postmetadata alt'>{meta}</p></div></div>"
    )
    assert PROSE[-1] in text
    assert "Der Beitrag wurde" not in text


def test_a_short_line_above_the_text_is_dropped() -> None:
    # A kicker or byline printed as the container's first paragraph labels the text.
    text = text_of(f"<article><p>By Jane Doe, City Hall reporter</p>{paragraphs(PROSE)}</article>")
    assert text.startswith(PROSE[0])


def test_a_short_first_sentence_above_the_text_stays() -> None:
    # A sentence of words (no digits, a full stop) opens the story; labels are not written so.
    first = "When I woke up, there was nothing."
    text = text_of(f"<article><p>{first}</p>{paragraphs(PROSE)}</article>")
    assert text.startswith(first)


def test_a_short_first_paragraph_of_a_text_without_longer_prose_stays() -> None:
    # Two short paragraphs are the whole text: the first is content, not a label.
    said = "The city council approved the budget for public health after a long debate."
    rest = "Nurses and doctors followed the vote from the public gallery of the town hall."
    text = text_of(f"<article><p>{said}</p><p>{rest}</p></article>")
    assert text.startswith(said)


def test_a_block_named_ad_as_part_of_a_dashed_token_is_pruned() -> None:
    advert = "Buy the new model now at your nearest dealer and save on the first service. " * 2
    text = text_of(
        f"<article><div class='article-body'>{paragraphs(PROSE[:2])}"
        f"<div class='it-ad' id='it-ad-content-after'><p>{advert}</p></div>"
        f"<div class='head-line download'>{paragraphs(PROSE[2:])}</div></div></article>"
    )
    assert all(p in text for p in PROSE)
    assert "Buy the new model" not in text


def test_inline_furniture_inside_a_sentence_is_kept() -> None:
    # The dateline opens the first sentence; pruning it would cut the sentence.
    opening = "<span class='dateline'>KOBE – </span>A total of 6,000 surgical masks were lost."
    text = text_of(f"<article><p>{opening} {PROSE[0]}</p>{paragraphs(PROSE[1:])}</article>")
    assert "KOBE – A total of 6,000 surgical masks" in text


def test_a_short_looking_cjk_first_paragraph_is_prose() -> None:
    # 50 CJK characters say as much as a 100-character Latin sentence: not a kicker.
    first = (
        "子どもへの虐待をなくすための法律ができて、"
        "親が子どもを教育するために体罰を禁止することになりました。"
    )
    text = text_of(f"<article><p>{first}</p>{paragraphs(PROSE)}</article>")
    assert text.startswith(first)


def test_thumbnails_of_the_next_post_are_pruned() -> None:
    teaser = "The next post on this blog: a choir sings with two famous rock musicians. " * 2
    text = text_of(
        f"<div id='story'>{paragraphs(PROSE)}<div id='next-post-thumbnails'>"
        f"<div class='nextstory'><p>{teaser}</p></div></div></div>"
    )
    assert all(p in text for p in PROSE)
    assert "The next post" not in text


def test_a_smaller_second_match_of_the_body_selector_is_content() -> None:
    # Templates split the body around an image or an ad slot; the part after it holds a
    # sixth of the text and is still the article's.
    rest = [
        "After the vote the mayor thanked the members of the committee and promised to publish "
        "a first report on the savings before the end of the summer holidays.",
        "The opposition said it would table its own amendments at the next full meeting, which "
        "is planned for the second week of September in the main hall.",
    ]
    text = text_of(
        f"<div class='article-body'>{paragraphs(PROSE * 3)}</div><img src='x.jpg'>"
        f"<div class='article-body'>{paragraphs(rest)}</div>"
    )
    assert all(p in text for p in rest)


@pytest.mark.parametrize(
    "links",
    [
        # 43 % of an 88-character paragraph is linked: story links with a few glue words.
        "See our coverage of <a href='/a'>the vote on the budget</a> and "
        "<a href='/b'>the consultation</a>, plus more from the council.",
        # 69 % of a 363-character block: too linked for its length to be prose.
        " ".join(
            f"<a href='/{n}'>Council story headline number {n} here</a> and more words"
            for n in range(7)
        ),
    ],
    ids=["short", "long"],
)
def test_a_block_with_much_linked_text_is_navigation(links: str) -> None:
    text = text_of(
        f"<article>{paragraphs(PROSE[:2])}<p>{links}</p>{paragraphs(PROSE[2:])}</article>"
    )
    assert all(p in text for p in PROSE)
    assert "headline number" not in text and "coverage of" not in text


def test_a_heading_of_prose_length_over_a_link_list_stays() -> None:
    # A standfirst printed as <h2> above the photo gallery links is prose, not their label.
    standfirst = (
        "During an operation to arrest three suspected motorbike thieves, the police said they "
        "had detained the mother of one of them, who is accused of hiding the stolen bikes."
    )
    gallery = "".join(f"<a href='/photo/{n}'>Photo {n}</a> " for n in range(4))
    text = text_of(f"<article><h2>{standfirst}</h2><p>{gallery}</p>{paragraphs(PROSE)}</article>")
    assert standfirst in text


def test_a_related_box_holding_over_half_of_the_container_text_is_pruned() -> None:
    # Story links with unlinked teaser words: more than half of the article's text, but
    # neither most of its paragraphs nor most of its unlinked text.
    items = "".join(
        f"<p><a href='/s/{n}'>Other story number {n:02d}</a> with a few unlinked words of teaser "
        "here.</p>"
        for n in range(14)
    )
    box = f"<div class='related-box'>{items}</div>"
    text = text_of(f"<article>{paragraphs(PROSE[:2])}{box}{paragraphs(PROSE[2:])}</article>")
    assert all(p in text for p in PROSE)
    assert "unlinked words" not in text


def test_a_small_furniture_box_is_pruned_even_when_it_holds_the_paragraphs() -> None:
    # A share box with a sixth of the text goes although its two <p> are the only prose:
    # the rest of the article is a table.
    rows = "".join(f"<tr><td>Line {n}</td><td>{PROSE[n % 4][:70]}</td></tr>" for n in range(20))
    box = f"<div class='share-box'><p>{COMMENT}</p><p>{COMMENT}</p></div>"
    text = text_of(f"<article><table>{rows}</table>{box}</article>")
    assert "Line 19" in text
    assert "Reader comment" not in text


def test_cjk_paragraphs_weigh_by_width_when_no_selector_matches() -> None:
    # No article selector matches, so the densest block wins. Thirty 26-character Japanese
    # paragraphs say about as much as 52 Latin characters each, and outweigh ten Latin
    # paragraphs of 300 characters only when counted by width.
    cjk = "子どもへの虐待をなくすための法律ができて親が教育のためにたたくことを禁止しました"[:26]
    latin = (PROSE[0] + " " + PROSE[1])[:300].replace(",", "")
    text = text_of(
        f"<div class='left'>{paragraphs([latin] * 10)}</div>"
        f"<div class='right'>{paragraphs([cjk] * 30)}</div>"
    )
    assert cjk in text


def test_a_main_area_wrapper_narrows_to_the_article_beside_its_sidebar() -> None:
    # `#content` wraps the article and a partner box; the article holds over 80 % of the
    # wrapper's prose, so the partner box is left out even though it reads like prose.
    partner = (
        "Book your hotel through our partner portal and five per cent of every booking "
        "goes to the youth programmes of the association."
    )
    text = text_of(
        f"<div id='content'><div class='news'><h1>Budget review</h1>{paragraphs(PROSE)}</div>"
        f"<div class='partners'><h3>Our partners</h3><p>{partner}</p></div></div>"
    )
    assert all(p in text for p in PROSE)
    assert "Budget review" in text
    assert "partner portal" not in text
    assert "Our partners" not in text


def test_a_main_area_wrapper_stays_whole_when_its_prose_is_spread() -> None:
    # Two halves of one text in sibling blocks: neither holds most of the prose.
    text = text_of(
        f"<main><div class='part'>{paragraphs(PROSE[:2])}</div>"
        f"<div class='part'>{paragraphs(PROSE[2:])}</div></main>"
    )
    assert all(p in text for p in PROSE)
