"""The only package that touches Sphinx, docutils and MyST internals: the Sphinx application
(:mod:`~mdmark.host.app`), the session every use of it runs in (:mod:`~mdmark.host.session`), the
private attributes behind named functions (:mod:`~mdmark.host.accessors`), the configuration as
plain data (:mod:`~mdmark.host.confinfo`), the config's MyST options
(:mod:`~mdmark.host.myst_settings`), the process-wide patches of docutils and MyST
(:mod:`~mdmark.host.patches`, :mod:`~mdmark.host.sandbox`), trust and the static reading of conf.py
(:mod:`~mdmark.host.trust`, :mod:`~mdmark.host.static_conf`), the toctree directive that keeps entries as written
(:mod:`~mdmark.host.toctree`), East Asian line breaks (:mod:`~mdmark.host.linebreaks`), what a
page may embed (:mod:`~mdmark.host.confine`), the text of unknown roles kept
(:mod:`~mdmark.host.keep_text`) and docutils/MyST/Sphinx messages as Japanese sentences
(:mod:`~mdmark.host.warnings_ja`). A test fails on private access anywhere else."""
