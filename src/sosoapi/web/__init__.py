"""Server-rendered web pages of `sosoapi serve`: each page is its own module here."""
