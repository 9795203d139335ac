"""The only code that opens network connections. See `gate.Egress`."""
