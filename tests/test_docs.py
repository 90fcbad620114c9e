"""The README documents every setting and command the code has."""
from pathlib import Path

from sidecar import config
from sidecar.cli import build_parser

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


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
