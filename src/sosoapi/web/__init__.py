"""Pages for people: the OAuth sign-in (consent) page and the API docs, shipped assets only."""
