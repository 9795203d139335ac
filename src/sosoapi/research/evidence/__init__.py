"""Evidence: identity and digests, reading back, search, quote check, diff."""
