"""The private parts of :mod:`fastrank.summaries` (bounded-memory summaries)."""
