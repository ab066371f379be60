"""A stderr that says it is a terminal, for the tests of progress lines (shown only on one)."""
from __future__ import annotations


class Tty:
    """Keeps what is written; says it is a terminal, but has no descriptor to size it by."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, s: str) -> int:
        self.text += s
        return len(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise OSError("not a real terminal")
