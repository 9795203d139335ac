"""SosoAPI Research: safe, bounded, durable public-source retrieval for research agents."""

__version__ = "0.1.0"
