"""Helpers every layer may use and that know nothing of documents: text normalisation and close
names, input bounds, safe file reads and atomic writes, TOON encoding, worker lifelines, git."""
