"""Pure text algorithms the evidence tools use: quote matching, word diff. No I/O."""
