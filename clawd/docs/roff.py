"""roff for the man pages: escaping prose and literals, fonts, examples and the page header."""

from __future__ import annotations

from clawd import __version__

MANUAL = "clawd manual"


def text(value: object) -> str:
    """Prose for roff: backslashes escaped, no line may start with a control character."""
    out = str(value).replace("\\", "\\e")
    return "\n".join("\\&" + line if line[:1] in (".", "'") else line for line in out.split("\n"))


def literal(value: object) -> str:
    """Options, commands, paths: also hyphens as \\- so they copy and search as ASCII minus."""
    return text(value).replace("-", "\\-")


def bold(value: object) -> str:
    return f"\\fB{literal(value)}\\fR"


def italic(value: object) -> str:
    return f"\\fI{literal(value)}\\fR"


def example(block: str) -> list[str]:
    return [".PP", ".RS 4", ".nf", *(literal(line) for line in block.splitlines()), ".fi", ".RE"]


def header(name: str, section: int, summary: str) -> list[str]:
    return [
        f'.TH "{name.upper()}" "{section}" "" "clawd {__version__}" "{MANUAL}"',
        ".SH NAME",
        f"{literal(name)} \\- {text(summary)}",
    ]
