"""`config check FILE | sample | show`: validate a file listing every problem with its JSON path,
print the commented sample, print the effective configuration with secrets masked."""
from __future__ import annotations

import importlib.resources
import json

import yaml

from clawd import errors
from clawd.cli.commands import Invocation


def check(inv: Invocation) -> int:
    """Exit 0 when FILE validates, 1 with every problem listed (stdout: the problems are the answer)."""
    from clawd.config import loader
    path = inv.args.file
    try:
        loader.load_config(path=path)
        problems: list[str] = []
    except errors.ConfigError as exc:
        problems = exc.problems
    if inv.json:
        print(json.dumps({"ok": not problems, "file": path, "problems": problems}, indent=2), file=inv.stdout)
    elif problems:
        print(f"{path}: {len(problems)} problem(s)", file=inv.stdout)
        for problem in problems:
            print(f"  {problem}", file=inv.stdout)
    else:
        print(f"{path}: ok", file=inv.stdout)
    return 1 if problems else 0


def sample_text() -> str:
    return importlib.resources.files("clawd.config").joinpath("sample.yaml").read_text(encoding="utf-8")


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
    inv.stdout.write(f"# effective configuration from {config.source or 'built-in defaults'}; "
                     f"state in {config.home}\n")
    inv.stdout.write(yaml.safe_dump(data, sort_keys=False, default_flow_style=False))
