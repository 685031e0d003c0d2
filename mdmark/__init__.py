"""mdmark: Markdown design documents with a YAML index, checked and exported through MyST."""

__version__ = "0.1.0"
