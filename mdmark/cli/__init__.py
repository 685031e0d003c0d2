"""The ``mdmark`` command line (:mod:`~mdmark.cli.main`): argument parsing in Japanese
(:mod:`~mdmark.cli.argparse_ja`) and one module per command (:mod:`mdmark.cli.commands`), each a thin
call into the library."""
