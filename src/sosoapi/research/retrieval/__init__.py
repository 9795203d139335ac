"""Retrieving one source: receipts, the read pipeline, outcomes, fair slots, uploads."""
