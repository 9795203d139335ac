"""The OAuth 2.1 authorization server, read start to end (docs/oauth.md says what it does):

1. `grants.py`: what is granted: a consent request, the person's decision (approved with one
   of their personal tokens, so a grant never exceeds it), codes, rotating tokens, and the
   sweep of what open registration leaves behind. Its rows live in `store/oauth_repo.py`.
2. `provider.py`: the MCP SDK's protocol handlers (/register, /authorize, /token, /revoke)
   over the grants, the store work off the event loop.
3. `registration.py`: dynamic client registration (RFC 7591), bounded and rate-limited.
4. `client_secrets.py`: client secrets compared by their hash at /token and /revoke;
   `asgi_bodies.py` reads those doors' bodies, bounded.
5. `server.py`: put together: the SDK's settings, the provider, the metadata routes.

The pages a person sees (the consent page, the API docs' sign-in) are `web/`'s; `app.py`
serves them beside these routes. Only `grants.py` is free of the web framework: the
composition root sweeps with it without loading Starlette or the SDK.
"""
