"""The private parts of :mod:`fastrank.trec`: ids, files, measures."""
