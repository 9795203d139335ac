"""Pages for people, rendered on the server from shipped templates and CSS (no external
assets): the OAuth sign-in (consent) page, the API docs, and the review console."""
