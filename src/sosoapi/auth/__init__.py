"""Tokens (hashed), principals, scopes, roles, the one permission check, and the admin
verbs; refusals are typed (`auth.errors`) and each surface words their fix."""
