"""The review console's use cases: sessions and read-only views."""
