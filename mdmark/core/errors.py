"""The error every front-end turns into one Japanese sentence (CLI: stderr + exit code, MCP: isError)."""

from __future__ import annotations


class MdmarkError(Exception):
    """A failure a user can fix; ``message`` is one Japanese sentence (or several ``{場所}: {内容}`` lines).

    ``exit_code`` is what the CLI exits with: 1 for a failed command, 2 when a command could not
    run at all (config missing or unreadable, bad ``--base``).
    """

    def __init__(
        self, message: str, exit_code: int = 1, *, file: str | None = None, line: int | None = None, column: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        #: Where the failure is, when it is in one file (``--format github`` annotates it there):
        #: the file's absolute path, and the 1-based line and column.
        self.file = file
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return self.message
