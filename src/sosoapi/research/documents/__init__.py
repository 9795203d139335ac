"""PDF documents as evidence: the document tool's read, bounds and result."""
