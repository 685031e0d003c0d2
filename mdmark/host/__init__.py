"""The only package that touches Sphinx, docutils and MyST internals: the Sphinx application and its
logging session (:mod:`~mdmark.host.app`), the toctree directive that keeps entries as written
(:mod:`~mdmark.host.toctree`), East Asian line breaks (:mod:`~mdmark.host.linebreaks`), what a
page may embed (:mod:`~mdmark.host.confine`), the text of unknown roles kept
(:mod:`~mdmark.host.keep_text`) and docutils/MyST/Sphinx messages as Japanese sentences
(:mod:`~mdmark.host.warnings_ja`). A test fails on private access anywhere else."""
