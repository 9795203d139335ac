"""The only code that opens network connections: URL and address policy, pinned dialling,
bounded bodies, status codes to reasons. See `gate.Egress`."""
