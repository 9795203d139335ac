"""Pure functions from bytes and headers to documents. No I/O, no project imports but contract."""
