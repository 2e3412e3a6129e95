"""Faithful text: the PDF's text layer, glyphs and inline markup read as printed, parser text repaired against the page."""
