"""Every `flitsim ...` command shown in README.md and docs/ parses with the real parser and
names configuration files that exist; the cheap ones (info, config, --help, reproduce
--list) run. A newcomer copying a documented command should never meet an unknown option."""
from flitsim import _core  # noqa: F401  (built before any test captures output: editable installs rebuild on import)
import pathlib
import re
import shlex

import pytest

from flitsim.cli import build_parser, main

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PLACEHOLDER = re.compile(r"\b(CONFIG|RESULT|FILE|NAME|KEY|VALUE|OUT|DIR|FIELD|STUDY)\b|\.\.\.|…|\[|\|")


def shell_blocks(text: str) -> list[str]:
    """The shell and plain code blocks of a markdown text. Fences are paired in order (a
    block's language only filters it), so the closing fence of a ```toml block is not
    mistaken for the opening of a shell block."""
    return [body for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)
            if lang in ("", "sh", "bash")]


def _commands():
    for doc in DOCS:
        text = doc.read_text()
        for block in shell_blocks(text):
            joined = re.sub(r"\\\n\s*", " ", block)
            for line in joined.splitlines():
                line = line.strip().lstrip("$ ")
                for part in re.split(r"\s*(?:&&|\|)\s*", line):
                    part = part.split("#")[0].strip()
                    if part.startswith("flitsim ") and not PLACEHOLDER.search(part):
                        yield doc.name, part


COMMANDS = sorted(set(_commands()))


def _failing_commands() -> set[str]:
    """Commands whose comment says they fail ("# an error": exit status 2)."""
    out = set()
    for doc in DOCS:
        for block in shell_blocks(doc.read_text()):
            for line in block.splitlines():
                code, _, comment = line.strip().lstrip("$ ").partition("#")
                if code.startswith("flitsim ") and re.search(r"\berror\b", comment):
                    out.add(code.strip())
    return out


FAILING = _failing_commands()


def test_docs_show_commands():
    assert len(COMMANDS) >= 10


@pytest.mark.parametrize("doc,command", COMMANDS, ids=[c for _, c in COMMANDS])
def test_documented_command_parses(doc, command):
    argv = shlex.split(command)[1:]
    if argv[-1:] == ["--help"] or argv == ["--help"]:
        return
    build_parser().parse_args(argv)          # SystemExit (usage error) fails the test
    for path in re.findall(r"configs/[\w./-]+\.toml", command):
        assert (ROOT / path).exists(), f"{doc}: {command}: {path} does not exist"


@pytest.mark.parametrize("doc,command", [c for c in COMMANDS if c[1].split()[1] in
                                         ("info", "config", "--help")] +
                         [("README.md", "flitsim reproduce --list")],
                         ids=lambda c: c if isinstance(c, str) else None)
def test_cheap_documented_commands_run(doc, command, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    argv = shlex.split(command)[1:]
    assert main(argv) == (2 if command in FAILING else 0), capsys.readouterr().err


def test_readme_python_snippet_runs(tmp_path, monkeypatch):
    # The README's Python block as written, on the 72-node dragonfly instead of the 1,056-node
    # one (same file, three more overrides) so that it takes seconds.
    pytest.importorskip("matplotlib")
    code = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)[0]
    small = '["traffic.load=0.3", "topology.p=2", "topology.a=4", "topology.h=2"]'
    assert '["traffic.load=0.3"]' in code
    code = code.replace('["traffic.load=0.3"]', small)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").symlink_to(ROOT / "configs")
    env: dict = {}
    exec(compile(code, "README.md", "exec"), env)
    assert len(env["table"]) == 4 and (tmp_path / "sweep.pdf").exists()
