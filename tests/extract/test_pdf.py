"""extract/pdf on real PDFs of the team's dev set, copied to tests/data/pdf (README there).

Each outcome the document tool settles on is checked on a file that shows it: a user
password, an owner password only, a scan, a partly scanned document, broken and truncated
files, two columns, tables and forms read by rows, boxes read whole, right-to-left and CJK
text, ligatures and hyphenation, running heads, page labels, and the page bound.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.pdf import PdfDocument, read_pdf
from sosoapi.extract.pdf.layout import LINE_BREAK, Glyph, lines_of, page_text
from sosoapi.extract.pdf.metadata import metadata
from sosoapi.extract.pdf.order import reading_order

PDF = Path(__file__).resolve().parent.parent / "data" / "pdf"
_HAN_SPACE_HAN = re.compile(r"[\u4e00-\u9fff] +[\u4e00-\u9fff]")


def read(name: str, **bounds: int) -> PdfDocument:
    return read_pdf(PDF / f"{name}.pdf", **bounds)


def assert_offsets_hold(document: PdfDocument) -> None:
    """Each page's text is its slice of the whole, in page order; pages with text are
    apart by a blank line, a page without text is an empty slice between them."""
    texts = [document.text[page.start : page.end] for page in document.pages]
    assert "\n\n".join(text for text in texts if text) == document.text


@pytest.mark.parametrize("name", ["pypdf-r4-aes-user-password", "pdfminer-aes-256"])
def test_a_user_password_is_login_required_and_nothing_is_read(name: str) -> None:
    document = read(name)
    assert document.conditions == (Reason.LOGIN_REQUIRED,)
    assert (document.text, document.pages, document.page_count) == ("", (), 0)


def test_an_owner_password_alone_reads_normally() -> None:
    document = read("pypdf-r6-owner-password")
    assert document.conditions == ()
    assert document.text == "pdf encryption test password: asdfzxcv"
    assert document.metadata.authors == ("cheng",)
    assert document.metadata.date == "2022-04-14T13:24:21+05:24"


def test_a_scan_without_a_text_layer_is_no_text_with_every_page_needing_ocr() -> None:
    document = read("textract-ocr_text")  # also owner-password protected
    assert document.conditions == (Reason.NO_TEXT,)
    assert document.text == ""
    assert document.page_count == 3
    assert document.pages_needing_ocr == (1, 2, 3)


def test_a_partly_scanned_document_is_partial_and_names_the_pages_needing_ocr() -> None:
    """The last two pages of this court opinion draw their text as paths."""
    document = read("doctor-vector-pdf")
    assert document.conditions == (Reason.SOURCE_PARTIAL,)
    assert document.pages_needing_ocr == (29, 30)
    assert all(page.start == page.end for page in document.pages[28:])
    assert "TARRANT REGIONAL WATER DISTRICT v. HERRMANN" in document.text
    assert_offsets_hold(document)


def test_running_heads_and_page_numbers_leave_the_text_for_the_page_furniture() -> None:
    document = read("doctor-vector-pdf")
    third = document.pages[2]
    assert third.furniture == ("Cite as: 569 U. S. ____ (2013)", "3")
    assert "Cite as: 569 U. S." not in document.text
    assert document.text[third.start :].startswith("Syllabus\ncontrol their waters")
    korean = read("docling-normal_4pages")
    assert [page.furniture for page in korean.pages] == [
        ("이슈와 논점",),
        ("이슈와 논점", "2"),
        (),
        ("이슈와 논점", "4"),
    ]


def test_the_page_bound_reads_the_first_pages_and_says_so() -> None:
    document = read("doctor-vector-pdf", max_pages=5)
    assert document.page_count == 30
    assert [page.number for page in document.pages] == [1, 2, 3, 4, 5]
    assert document.conditions == (Reason.RESPONSE_TOO_LARGE,)
    assert_offsets_hold(document)


def test_a_file_ending_in_zeros_without_eof_still_reads() -> None:
    document = read("pypdf-selenium-pypdf-issue-177")
    assert document.conditions == ()
    assert document.text.endswith("Hello World")


def test_a_corrupt_stream_on_a_page_drawn_sideways_reads_upright() -> None:
    """The page is /Rotate 90 and one of its streams fails to inflate: PDFium keeps what
    inflated, and the glyphs, running up the page, are turned before lines are made (the
    reference, pdfminer.six's test, starts with the printout's header as this does)."""
    document = read("pdfminer-zen_of_python_corrupted")
    assert document.text.startswith("Mai 30, 18 13:27 zen_of_python.txt")
    assert "Beautiful is better than ugly. Explicit is better than implicit." in document.text


@pytest.mark.parametrize(
    "cut", [lambda data: data[:600], lambda data: data[: len(data) // 2], lambda data: b""]
)
def test_a_truncated_file_pdfium_cannot_rebuild_is_unsupported_content(
    tmp_path: Path, cut: object
) -> None:
    path = tmp_path / "cut.pdf"
    path.write_bytes(cut((PDF / "doctor-vector-pdf.pdf").read_bytes()))  # type: ignore[operator]
    document = read_pdf(path)
    assert document.conditions == (Reason.UNSUPPORTED_CONTENT,)
    assert (document.text, document.pages) == ("", ())


def test_html_is_not_a_pdf(tmp_path: Path) -> None:
    path = tmp_path / "page.pdf"
    path.write_bytes(b"<!doctype html><title>Not found</title><p>gone</p>")
    assert read_pdf(path).conditions == (Reason.UNSUPPORTED_CONTENT,)


def test_two_columns_are_read_one_after_the_other() -> None:
    text = read("unstructured-multi-column-2p").text
    first_column = text.index("1 Introduction")
    second_column = text.index("Retrieval in open-domain QA is usually implemented")
    assert text.index("Abstract") < first_column < second_column
    # the left column's lines run on into one paragraph, with nothing of the right between
    assert "the advances of reading comprehension models suggest a much simplified" in text


def test_ligatures_expand_and_line_end_hyphens_join_their_word() -> None:
    text = read("unstructured-multi-column-2p").text
    assert "relies on efficient passage retrieval" in text  # ef-/ﬁcient across a line end
    assert "implemented using dense representations" in text  # us-/ing
    assert "outperforms a strong Lucene-BM25 system" in text  # a compound keeps its hyphen
    assert not re.search("[\ufb00-\ufb06\ufffe\x02]", text)


def test_a_margin_stamp_goes_to_the_furniture() -> None:
    document = read("unstructured-multi-column-2p")
    assert document.pages[0].furniture == ("arXiv:2004.04906v3 [cs.CL] 30 Sep 2020",)
    assert "arXiv:2004.04906v3" not in document.text


def test_right_to_left_text_is_in_logical_order_with_its_declared_language() -> None:
    document = read("docling-right_to_left_02")
    assert document.text.startswith("وعليه، فإن الحكومة المصرية تضع")
    assert document.metadata.language == "ar-EG"
    assert document.metadata.title == "PowerPoint Presentation"
    assert document.metadata.authors == ("Toshiba",)
    assert document.metadata.date == "2024-07-04T13:06:20+03:00"


def test_chinese_reads_without_spurious_spaces() -> None:
    document = read("pdfminer-issue_566_test_2")
    assert document.text == "甲方：中国饮料有限公司（盖章）"
    assert not _HAN_SPACE_HAN.search(document.text)
    assert document.metadata.language == "zh-CN"


def test_korean_keeps_its_word_spaces_and_its_metadata() -> None:
    document = read("docling-normal_4pages")
    assert "코로나-19 관련 보험약관상 재해보험금 지급문제 및 개선과제" in document.text
    assert document.metadata.title == "코로나-19 관련 보험약관상 재해보험금 지급문제 및 개선과제"
    assert document.metadata.authors == ("김창호",)


def test_page_labels_are_read_and_absent_ones_are_none() -> None:
    assert [page.label for page in read("pdfplumber-scotus-transcript-p1").pages] == ["1"]
    assert {page.label for page in read("doctor-vector-pdf").pages} == {None}


def test_margin_line_numbers_stay_beside_their_lines() -> None:
    """A transcript's line numbers are a narrow side, not a column to read first."""
    text = read("pdfplumber-scotus-transcript-p1").text
    assert "1 IN THE SUPREME COURT OF THE UNITED STATES\n2 - - -" in text


def test_blank_pages_are_not_pages_needing_ocr() -> None:
    """Pages 2 and 3 of this paper draw nothing at all: no text, but nothing to OCR either."""
    document = read("unstructured-layout-parser-paper-with-empty-pages")
    assert [page.blank for page in document.pages] == [False, True, True, False]
    assert document.pages_needing_ocr == ()
    assert document.conditions == ()


def test_xmp_alone_gives_title_creator_and_date() -> None:
    """This report's XMP packet carries what its Info dictionary does; read without the
    Info, the metadata still comes whole from the packet."""
    found = metadata(PDF / "docling-normal_4pages.pdf", {}, None)
    assert found.title == "코로나-19 관련 보험약관상 재해보험금 지급문제 및 개선과제"
    assert found.authors == ("김창호",)
    assert found.date == "2020-03-31T18:02:55+09:00"


def test_an_info_author_that_is_a_nul_is_no_author() -> None:
    assert read("textract-ocr_text").metadata.authors == ()


def test_letter_spaced_words_stay_whole() -> None:
    """The `"` operator draws this line with wide character spacing: PDFium, which knows
    the font's widths, says where the word gaps are; gaps between glyphs do not."""
    text = read("pypdf-toy").text
    assert "Double quote operator" in text


def test_a_narrow_gutter_still_parts_two_columns() -> None:
    """This handbook page's columns are 9 points apart, less than a line's height: the left
    column ends before the right one begins, figure labels after the left column."""
    text = read("docling-amt_handbook_sample").text
    left_end = text.index("The nut can be removed and reused without impairing its efficiency.")
    right_start = text.index("the most common ranges in size for No. 6")
    assert text.index("Boots self-locking nuts are made with three different") < right_start
    assert left_end < right_start


def test_words_set_far_apart_on_a_line_read_across_it_not_as_two_columns() -> None:
    """Each line draws "Hello" and "World" farther apart than a gutter: four one-word lines
    a side are not columns of running text."""
    text = read("pdfminer-simple1").text
    assert text.startswith("Hello World\nHello World\nHello World\n")


def test_a_header_block_drawn_after_the_body_still_reads_first() -> None:
    """This report's first page draws its two columns, then the masthead and title above
    them: the stream order goes back up over what it read, so the page is cut instead."""
    text = read("docling-normal_4pages").text
    assert text.startswith("제1695호\n")
    title = text.index("코로나-19 관련 보험약관상 재해보험금 지급문제 및 개선과제")
    assert title < text.index("1 들어가며") < text.index("이슈가 될 것으로 판단된다.")


def test_a_forms_labels_and_values_read_row_by_row() -> None:
    """A Persian form: each label (right) is followed by its value (left), not every label
    first and the values after."""
    text = read("docling-right_to_left_03").text
    assert "تاريخ ارائه مدارک 1403/09/19\nتاريخ پذيرش 1403/10/04\n" in text
    assert "شماره جلسه کميته عرضه 436" in text


def test_boxes_side_by_side_read_each_box_whole() -> None:
    """A slide's two lists side by side, drawn box by box: PDFium's stream order keeps each
    whole where reading across the rows would interleave them."""
    document = read("docling-odf-odf_presentation_01-odp")
    page = document.pages[2]
    text = document.text[page.start : page.end]
    assert "• I1 • I2 • I3 • I4\nSome info: • Item A • Item B" in text


def test_a_financial_tables_rows_read_label_then_figures() -> None:
    """A 10-Q's statement: the labels' side and the figures' side are not two columns of
    text; each row reads its label then its figures. The running foot is furniture."""
    document = read("extractous-2022_Q3_AAPL", max_pages=5)
    page = document.pages[4]
    text = document.text[page.start : page.end]
    assert "Net income $ 19,442 $ 21,744 $ 79,082 $ 74,129" in text
    assert "Total comprehensive income $ 16,639 $ 22,088 $ 69,622 $ 74,593" in text
    assert "Apple Inc. | Q3 2022 Form 10-Q | 2" in page.furniture
    assert "Form 10-Q |" not in text


def test_arabic_lam_alef_is_in_logical_order_and_kashida_is_dropped() -> None:
    """PDFium hands the lam-alef ligature as alef then lam (visual order) and keeps the
    kashida that stretches a justified word: the text has lam then alef, and no kashida."""
    persian = read("docling-right_to_left_03").text
    assert "کالای داخلی" in persian
    assert "کاال" not in persian
    arabic = read("docling-right_to_left_02").text
    assert "الإنسخن" in arabic
    assert "اإل" not in arabic
    assert "\u0640" not in arabic


def _glyph_line(text: str, top: float, size: float = 10.0) -> list[Glyph]:
    return [
        (char, 72 + i * size, top - size, 72 + (i + 1) * size, top) for i, char in enumerate(text)
    ] + [(LINE_BREAK, 0.0, 0.0, 0.0, 0.0)]


@pytest.mark.parametrize(
    ("first", "second", "read"),
    [
        ("甲方中国饮料", "有限公司盖章", "甲方中国饮料有限公司盖章"),
        ("재해보험금", "지급문제", "재해보험금 지급문제"),
        ("reading", "order", "reading order"),
    ],
)
def test_han_lines_run_on_without_a_space_and_spaced_scripts_keep_one(
    first: str, second: str, read: str
) -> None:
    """No Chinese or Japanese file of the dev set spans two lines in a form PDFium reads
    (the multi-line ones use CMaps it maps wrongly), so the join is checked on glyphs
    placed as PDFium reports them: one paragraph's two lines, 2 points apart."""
    lines = lines_of(_glyph_line(first, 700) + _glyph_line(second, 688))
    assert page_text(reading_order(lines)) == read


def test_a_page_bound_below_one_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="max_pages is 0; the page bound must be 1 or more"):
        read("pypdf-toy", max_pages=0)
