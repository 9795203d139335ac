"""PDF documents: text in reading order page by page, metadata, and what could not be read."""

from sosoapi.extract.limits import PAGES_MAX
from sosoapi.extract.pdf.document import PdfDocument, PdfMetadata, PdfPage
from sosoapi.extract.pdf.reader import read_pdf

__all__ = ["PAGES_MAX", "PdfDocument", "PdfMetadata", "PdfPage", "read_pdf"]
