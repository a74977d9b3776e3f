"""`config check FILE | sample | show | import-openclaw FILE`: validate a file listing every problem
with its JSON path, print the commented sample, print the effective configuration with secrets
masked, turn an OpenClaw config into clawd.yaml."""

from __future__ import annotations

import importlib.resources
import json
import os
import pathlib

import yaml

from clawd import errors
from clawd.cli.commands import Invocation, UsageError, command, group


def check(inv: Invocation) -> int:
    """Exit 0 when FILE validates, 1 with every problem listed
    (stdout: the problems are the answer)."""
    from clawd.config import loader

    path = inv.args.file
    try:
        loader.load_config(path=path)
        problems: list[str] = []
    except errors.ConfigError as exc:
        problems = exc.problems
    if inv.json:
        print(
            json.dumps({"ok": not problems, "file": path, "problems": problems}, indent=2),
            file=inv.stdout,
        )
    elif problems:
        print(f"{path}: {len(problems)} problem(s)", file=inv.stdout)
        for problem in problems:
            print(f"  {problem}", file=inv.stdout)
    else:
        print(f"{path}: ok", file=inv.stdout)
    return 1 if problems else 0


def sample_text() -> str:
    return (
        importlib.resources.files("clawd.config")
        .joinpath("sample.yaml")
        .read_text(encoding="utf-8")
    )


def sample(inv: Invocation) -> None:
    inv.stdout.write(sample_text())


def show(inv: Invocation) -> None:
    """The configuration the service would run with: file (or defaults) + environment, as YAML."""
    from clawd.config import loader

    config = inv.config
    data = loader.config_to_dict(config, mask_secrets=True)
    if inv.json:
        print(json.dumps(data, indent=2), file=inv.stdout)
        return
    inv.stdout.write(
        f"# effective configuration from {config.source or 'built-in defaults'}; "
        f"state in {config.home}\n"
    )
    inv.stdout.write(yaml.safe_dump(data, sort_keys=False, default_flow_style=False))


def import_openclaw(inv: Invocation) -> int:
    """An OpenClaw config as clawd.yaml: the YAML on stdout (or --out, mode 0600: it holds secrets),
    each key not carried over on stderr and as a comment at the top."""
    from clawd.config import openclaw

    a = inv.args
    try:
        text = pathlib.Path(a.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {a.file}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = openclaw.parse(text)
    except ValueError as exc:
        raise errors.InvalidRequest(f"{a.file} is not an OpenClaw config (JSON5): {exc}") from None
    imported = openclaw.convert(data)
    lines = [
        f"# clawd.yaml imported from the OpenClaw config {a.file} "
        "(clawd-browser config import-openclaw)."
    ]
    if imported.skipped:
        lines.append("# Not carried over:")
        lines += [f"#   {path}: {why}" for path, why in imported.skipped]
    document = "\n".join(lines) + "\n" + yaml.safe_dump(imported.document, sort_keys=False)
    if a.out:
        _write_private(pathlib.Path(a.out), document, force=a.force)
    else:
        inv.stdout.write(document)
    for path, why in imported.skipped:
        print(f"not carried over: {path}: {why}", file=inv.stderr)
    if a.out:
        print(f"wrote {a.out}", file=inv.stderr)
    return 0


def _write_private(path: pathlib.Path, text: str, *, force: bool) -> None:
    if path.exists() and not force:
        raise UsageError(f"{path} exists; give --force to replace it")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(path, 0o600)


def add_parsers(sub) -> None:
    _, actions = group(
        sub, "config", "check, show or print a sample configuration", needs_service=False
    )
    p = command(
        actions,
        "check",
        check,
        "validate a configuration file, listing every problem",
        needs_service=False,
    )
    p.add_argument("file", metavar="FILE", help="YAML file to check")
    command(
        actions,
        "sample",
        sample,
        "print a commented sample configuration",
        needs_service=False,
    )
    command(
        actions,
        "show",
        show,
        "print the effective configuration, secrets masked",
        needs_service=False,
    )
    p = command(
        actions,
        "import-openclaw",
        import_openclaw,
        "turn an OpenClaw config's browser, profiles, SSRF policy, gateway auth, web tools and "
        "tool policy into clawd.yaml, naming every key not carried over",
        needs_service=False,
    )
    p.add_argument(
        "file", metavar="FILE", help="OpenClaw config (JSON5), such as ~/.openclaw/openclaw.json"
    )
    p.add_argument(
        "--out", metavar="PATH", help="write the YAML here (mode 0600) instead of printing it"
    )
    p.add_argument("--force", action="store_true", help="replace PATH when it exists")
