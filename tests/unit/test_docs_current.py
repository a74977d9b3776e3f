"""The project's documents in docs/ are what the code says: docs/api.md is what the generator
renders from the route table and the act table now, the pages name every route and act kind, and
every document the code cites is in the repository."""

from __future__ import annotations

import pathlib
import re

from clawd import acts
from clawd.docs import api_doc
from clawd.server.routes import ROUTES

REPO = pathlib.Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
CITATION = re.compile(r"\bdocs/([a-z_-]+\.md)\b")
# citations of the design document outside the repository, in files of other moves (cli/):
# each is to become the docs/ page that says it (main.py: docs/security.md; extension.py:
# docs/architecture.md); then this set is empty
NOT_YET: set[str] = set()  # files that may still cite DESIGN.md: none


def _source_files():
    for path in sorted((REPO / "clawd").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            yield path


def test_committed_api_page_is_what_the_generator_renders():
    committed = DOCS / "api.md"
    assert committed.read_text(encoding="utf-8") == api_doc.render(ROUTES), (
        "docs/api.md drifted from server/routes.py, route_fields.py or acts.py: run "
        "`python -m clawd.docs.api_doc docs/api.md` and commit the result"
    )


def test_api_page_names_every_route_and_every_act_kind():
    page = api_doc.render(ROUTES)
    missing = [f"{r.method} {r.pattern}" for r in ROUTES if f"`{r.method} {r.pattern}`" not in page]
    missing += [name for name in acts.KINDS if f"### `{name}`" not in page]
    assert not missing, missing


def test_actions_page_describes_every_act_kind():
    page = (DOCS / "actions.md").read_text(encoding="utf-8")
    assert not [name for name in acts.KINDS if f"`{name}`" not in page]


def test_every_document_the_code_cites_is_in_the_repository():
    cited = {}
    for path in _source_files():
        for name in CITATION.findall(path.read_text(encoding="utf-8", errors="replace")):
            cited.setdefault(name, path.relative_to(REPO).as_posix())
    assert cited, "no file of clawd/ cites docs/: the citations were lost"
    missing = {name: where for name, where in cited.items() if not (DOCS / name).is_file()}
    assert not missing, missing


def test_the_code_cites_no_design_document_outside_the_repository():
    citing = {
        path.relative_to(REPO).as_posix()
        for path in _source_files()
        if "DESIGN.md" in path.read_text(encoding="utf-8", errors="replace")
    }
    assert citing <= NOT_YET, sorted(citing - NOT_YET)
