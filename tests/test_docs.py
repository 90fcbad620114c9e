"""The documentation keeps up with the code.

Every route, setting, command, option, plugin hook, plugin REST route, widget hook and
module the code has is documented where docs/README.md says it is, and what the pages
document still exists: a change that adds, renames or removes one of them changes its
page too. The README keeps its settings table, its command list and its map of modules.
"""
from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

import pytest

from sidecar import config
from sidecar.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SIDECAR = ROOT / "sidecar"
PLUGIN = ROOT / "wp-plugin"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def settings() -> list[str]:
    """The settings the configuration reads, however config.py declares them."""
    return [str(key) for key in config._KEYS]


# --- the README ---------------------------------------------------------------------------

def test_every_setting_is_documented():
    missing = [key for key in config._KEYS if f"`{key}`" not in README]
    assert missing == []


def test_every_command_is_documented():
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    missing = [name for name in commands if f"rtac {name}" not in README]
    assert missing == []


def test_the_two_commands_are_there():
    assert "\nmake run" in README and "\nmake test" in README


def test_the_readme_links_the_documentation():
    assert "(docs/README.md)" in README


# --- the README's Layout: every module placed --------------------------------------------

_LAYOUT_DIR = re.compile(r"^(\S+/)(?:\s|$)")
_LAYOUT_ENTRY = re.compile(r"^  ([^\s#]\S*)(?:\s|$)")


def layout_entries(readme: str) -> list[str]:
    """The paths the README's Layout section names: a line at the margin names a folder
    (`sidecar/memory/`), a line indented by two spaces a file in it (`  store.py  ...`);
    comment lines (`  # ...`) and continuation lines (indented further) name nothing."""
    m = re.search(r"^## Layout\n(.*?)(?=^## |\Z)", readme, re.S | re.M)
    assert m, "the README has no Layout section"
    entries, folder = [], None
    for line in m.group(1).splitlines():
        if (d := _LAYOUT_DIR.match(line)) and not line.startswith("```"):
            folder = d.group(1)
        elif (e := _LAYOUT_ENTRY.match(line)) and folder:
            entries.append(folder + e.group(1))
    return entries


def modules() -> list[str]:
    found = [p for p in SIDECAR.rglob("*.py") if "__pycache__" not in p.parts]
    found += list((PLUGIN / "includes").glob("*.php"))
    return sorted(p.relative_to(ROOT).as_posix() for p in found)


def test_every_module_is_placed_in_the_layout():
    placed = set(layout_entries(README))
    missing = [m for m in modules() if m not in placed]
    assert missing == [], "name these in the README's Layout section"


def test_the_layout_names_only_what_exists_and_each_once():
    entries = layout_entries(README)
    gone = [e for e in entries if not (ROOT / e.rstrip("/")).exists()]
    twice = sorted({e for e in entries if entries.count(e) > 1})
    assert (gone, twice) == ([], [])


def test_the_layout_reader_sees_a_missing_module():
    readme = "## Layout\n\n```\nsidecar/   the package\n  app.py    the app\n  # a stage\n```\n\n## Tests\n"
    assert layout_entries(readme) == ["sidecar/app.py"]
    assert "sidecar/turn.py" not in layout_entries(readme)


# --- docs/api.md: every route of the app -------------------------------------------------

_ROUTE_HEADING = re.compile(r"^#{2,3} `(GET|POST|PUT|PATCH|DELETE) (/[^`\s]*)`\s*$", re.M)
_CONVERTER = re.compile(r"<(?:[^<>:]+:)?([^<>:]+)>")


@pytest.fixture(scope="module")
def app():
    """The real application, built as a server builds it, on a database it never touches."""
    from sidecar.app import create_app
    from sidecar.config import Config
    return create_app(Config(database_url="mysql+pymysql://nobody@127.0.0.1:9/unused", master_key=bytes(32),
                             retrieval="fulltext", memory=False))


def app_routes(app) -> set[tuple[str, str]]:
    """(method, rule) of every route, `<int:question_id>` written `<question_id>`.
    Flask's own static route serves nothing here and is not the API's."""
    return {(method, _CONVERTER.sub(r"<\1>", rule.rule))
            for rule in app.url_map.iter_rules() if rule.endpoint != "static"
            for method in rule.methods - {"HEAD", "OPTIONS"}}


def documented_routes(text: str) -> set[tuple[str, str]]:
    return set(_ROUTE_HEADING.findall(text))


def test_every_route_is_documented(app):
    routes = app_routes(app)
    assert ("POST", "/v1/chat") in routes and ("GET", "/healthz") in routes
    missing = sorted(routes - documented_routes(page("api.md")))
    assert missing == [], "give each a `## `METHOD /path`` heading in docs/api.md"


def test_every_documented_route_exists(app):
    assert sorted(documented_routes(page("api.md")) - app_routes(app)) == []


# --- docs/configuration.md: every setting ------------------------------------------------

_SETTING_ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]*)` \|", re.M)


def sidecar_source() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in SIDECAR.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_setting_is_in_the_configuration_page():
    rows = set(_SETTING_ROW.findall(page("configuration.md")))
    missing = [key for key in settings() if key not in rows]
    assert missing == [], "give each a row `| `NAME` | default | meaning |` in docs/configuration.md"


def test_every_documented_setting_is_read():
    """A row names a setting config.py declares, or a variable some module reads by name."""
    source, keys = sidecar_source(), set(settings())
    unread = [name for name in _SETTING_ROW.findall(page("configuration.md"))
              if name not in keys and f'"{name}"' not in source and f"'{name}'" not in source]
    assert unread == []


# --- docs/cli.md: every command, sub-command and option ----------------------------------

_CLI_HEADING = re.compile(r"^#{2,4} `rtac ([a-z0-9][a-z0-9 -]*?)`\s*$", re.M)


def commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    """(command words, its parser) of every verb and sub-verb, depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield prefix + (name,), sub
                yield from commands(sub, prefix + (name,))


def cli_sections(text: str) -> dict[str, str]:
    """`rtac site add` -> the text from its heading to the next command heading."""
    heads = list(_CLI_HEADING.finditer(text))
    return {m.group(1): text[m.end():(heads[i + 1].start() if i + 1 < len(heads) else len(text))]
            for i, m in enumerate(heads)}


def options(parser: argparse.ArgumentParser) -> list[str]:
    """The long form of every option a user may pass (hidden ones and --help aside)."""
    out = []
    for action in parser._actions:
        if not action.option_strings or action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
            continue
        out.append(max(action.option_strings, key=len))
    return out


def test_every_command_has_its_section():
    sections = cli_sections(page("cli.md"))
    words = [" ".join(path) for path, _ in commands(build_parser())]
    assert "site rotate-secret" in words and "init-db" in words
    missing = [w for w in words if w not in sections]
    assert missing == [], "give each a heading `### `rtac VERB SUB`` in docs/cli.md"


def test_every_option_is_in_its_command_section():
    sections = cli_sections(page("cli.md"))
    missing = [f"rtac {' '.join(path)} {opt}" for path, sub in commands(build_parser())
               for opt in options(sub) if opt not in sections.get(" ".join(path), "")]
    assert missing == []


def test_every_documented_command_exists():
    words = {" ".join(path) for path, _ in commands(build_parser())}
    assert sorted(set(cli_sections(page("cli.md"))) - words) == []


# --- docs/plugin.md: hooks, REST routes, widget hooks ------------------------------------

_HOOK_CALL = re.compile(
    r"\b(apply_filters|apply_filters_ref_array|do_action|do_action_ref_array)\s*\(\s*(['\"])(rtac_[A-Za-z0-9_]+)\2")
_HOOK_ROW = re.compile(r"^\| (filter|action) \| `(rtac_[A-Za-z0-9_]+)` \|", re.M)


def php_files() -> list[Path]:
    return sorted(PLUGIN.rglob("*.php"))


def fired_hooks(php: str) -> dict[str, str]:
    """rtac_* hook name -> "filter" or "action", for every call with a literal name."""
    return {name: "action" if call.startswith("do_action") else "filter"
            for call, _, name in _HOOK_CALL.findall(php)}


def plugin_hooks() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in php_files():
        found.update(fired_hooks(path.read_text(encoding="utf-8")))
    return found


def documented_hooks(text: str) -> dict[str, str]:
    return {name: kind for kind, name in _HOOK_ROW.findall(text)}


def test_the_hook_scanner_reads_both_kinds_and_either_quote():
    php = ("$x = apply_filters( 'rtac_a', $x );\ndo_action(\n\t\"rtac_b\", 1 );\n"
           "apply_filters( 'the_content', $c ); do_action( 'rtac_' . $dynamic );")
    assert fired_hooks(php) == {"rtac_a": "filter", "rtac_b": "action"}


def test_every_plugin_hook_is_documented():
    fired, documented = plugin_hooks(), documented_hooks(page("plugin.md"))
    assert "rtac_context" in fired and "rtac_sidecar_error" in fired
    wrong = {name: kind for name, kind in fired.items() if documented.get(name) != kind}
    assert wrong == {}, "give each a row `| filter|action | `name` | arguments | use |` in docs/plugin.md"


def test_every_documented_hook_is_fired():
    assert sorted(set(documented_hooks(page("plugin.md"))) - set(plugin_hooks())) == []


_REST_CALL = re.compile(r"register_rest_route\(\s*[^,]+,\s*'([^']*)'")
_REST_METHODS = {"READABLE": "GET", "CREATABLE": "POST", "EDITABLE": "POST", "DELETABLE": "DELETE"}
_REST_HEADING = re.compile(r"^#{2,3} `(GET|POST|PUT|PATCH|DELETE) /wp-json/rtac/v1(/[^`\s]*)`\s*$", re.M)


def plugin_rest_routes() -> set[tuple[str, str]]:
    """(method, path) of every route the plugin registers; a path with a pattern in it
    (`/site-health/(?P<test>...)`) is kept up to the pattern."""
    routes = set()
    for path in php_files():
        php = path.read_text(encoding="utf-8")
        calls = list(_REST_CALL.finditer(php))
        for i, m in enumerate(calls):
            body = php[m.end():calls[i + 1].start() if i + 1 < len(calls) else len(php)]
            method = re.search(r"'methods'\s*=>\s*WP_REST_Server::(\w+)", body)
            routes.add((_REST_METHODS.get(method.group(1), method.group(1)) if method else "?",
                        m.group(1).split("(", 1)[0]))
    return routes


def _same_route(documented: tuple[str, str], registered: tuple[str, str]) -> bool:
    (dm, dp), (rm, rp) = documented, registered
    return dm == rm and (dp == rp or (rp.endswith("/") and dp.startswith(rp)))


def test_every_plugin_rest_route_is_documented():
    documented = set(_REST_HEADING.findall(page("plugin.md")))
    registered = plugin_rest_routes()
    assert ("POST", "/chat") in registered
    missing = [r for r in registered if not any(_same_route(d, r) for d in documented)]
    assert missing == [], "give each a heading `### `METHOD /wp-json/rtac/v1/...`` in docs/plugin.md"


def test_every_documented_plugin_rest_route_exists():
    registered = plugin_rest_routes()
    gone = [d for d in _REST_HEADING.findall(page("plugin.md")) if not any(_same_route(d, r) for r in registered)]
    assert gone == []


_WIDGET_HOOK = re.compile(r"'data-rtac'\s*:\s*'([a-z][a-z0-9-]*)'|\bbtn\(\s*'([a-z][a-z0-9-]*)'")
_DOCUMENTED_WIDGET_HOOK = re.compile(r'data-rtac="([a-z][a-z0-9-]*)"')


def widget_hooks() -> set[str]:
    js = (PLUGIN / "assets" / "widget.js").read_text(encoding="utf-8")
    return {a or b for a, b in _WIDGET_HOOK.findall(js)}


def test_every_widget_hook_is_documented():
    hooks = widget_hooks()
    assert {"open", "input", "send", "message", "quick-reply", "lead-form"} <= hooks
    documented = set(_DOCUMENTED_WIDGET_HOOK.findall(page("plugin.md")))
    assert sorted(hooks - documented) == [] and sorted(documented - hooks) == []
    assert "#rtac-widget" in page("plugin.md")


# --- the pages link up -------------------------------------------------------------------

_LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(markdown: str) -> set[str]:
    """Heading anchors as GitHub makes them: lower case, punctuation dropped, spaces to '-'."""
    out = set()
    for heading in re.findall(r"^#{1,6} (.+?)\s*$", markdown, re.M):
        out.add(re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-"))
    return out


def test_every_page_is_in_the_index():
    index = page("README.md")
    unlisted = [p.name for p in DOCS.iterdir() if p.name != "README.md" and f"]({p.name})" not in index]
    assert unlisted == []


def test_every_link_of_the_pages_resolves():
    broken = []
    for doc in sorted(DOCS.glob("*.md")):
        text = doc.read_text(encoding="utf-8")
        for target in _LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue  # an outside address
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            if not file.exists():
                broken.append(f"{doc.name}: {target}")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
                broken.append(f"{doc.name}: {target}")
    assert broken == []


# --- the project stands on its own documentation ----------------------------------------

_SKIPPED_DIRS = {".git", ".venv", ".hypothesis", ".pytest_cache", ".run", "test-artifacts", "__pycache__",
                 "node_modules", "build", "dist"}
_OLD_DESIGN_FILE = "DESIGN" + ".md"  # spelled apart, so this file does not name it


def test_nothing_points_to_a_design_file_outside_the_project():
    """Docstrings, comments and tests name the docs/ page that holds what they mean;
    only a history note in docs/ may mention the old design file."""
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in _SKIPPED_DIRS and not d.endswith(".egg-info")]
        for name in files:
            path = Path(folder) / name
            rel = path.relative_to(ROOT)
            if rel.parts[0] == "docs" and ("history" in name.lower() or "changelog" in name.lower()):
                continue
            try:
                if path.stat().st_size > 5_000_000:
                    continue
                data = path.read_bytes()
            except OSError:
                continue
            if _OLD_DESIGN_FILE.encode() in data:
                found.append(rel.as_posix())
    assert found == [], "point these at docs/*.md"
