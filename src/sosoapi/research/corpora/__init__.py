"""Projects and the corpora sealed from them."""
