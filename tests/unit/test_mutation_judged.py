"""mutation/judged.txt names survivors by mutmut's names (module, class, function, number), and
pyproject's ``only_mutate`` says which modules are mutated. When code moves to another module,
both go stale without a sound: the moved code is no longer mutated, and a judgement keeps
excusing a name no mutant has. This holds each judged name to a function that exists, in a
module that is mutated.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTMUT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
# roncho._http.xǁResponseParserǁ_maybe_read_one_head__mutmut_8, roncho._checks.x__walk__mutmut_10
NAME = re.compile(r"(?P<module>[\w.]+)\.x(?:ǁ(?P<cls>\w+)ǁ|_)(?P<function>\w+?)__mutmut_\d+")


def judged_names() -> list[str]:
    text = (ROOT / "mutation" / "judged.txt").read_text(encoding="utf-8")
    return [
        line.split("|", 1)[0].strip()
        for line in text.splitlines()
        if line.strip() and not line.startswith("#")
    ]


def defines(path: Path, cls: str | None, function: str) -> bool:
    """Whether the module at ``path`` defines ``function`` (in class ``cls``, if given). Read
    line by line, not with ast: in mutmut's copy the modules are mutmut's own, large enough
    that CPython 3.11.7's ast.parse can fail deep in a long run (SystemError: AST constructor
    recursion depth mismatch), which stopped the mutation run."""
    text = path.read_text(encoding="utf-8")
    if cls is not None:
        start = re.search(rf"^class {re.escape(cls)}\b.*$", text, re.M)
        if start is None:
            return False
        end = re.compile(r"^[^\s)]", re.M).search(text, start.end())  # past a wrapped header
        text = text[start.end() : end.start() if end else len(text)]
        indent = "    "
    else:
        indent = ""
    return re.search(rf"^{indent}(async )?def {re.escape(function)}\(", text, re.M) is not None


def test_every_mutated_module_exists() -> None:
    assert [p for p in MUTMUT["only_mutate"] if not (ROOT / p).is_file()] == []


def test_every_judged_survivor_names_a_function_of_a_mutated_module() -> None:
    stale = []
    for name in judged_names():
        match = NAME.fullmatch(name)
        assert match, f"not a mutmut name: {name}"
        path = match["module"].replace(".", "/") + ".py"
        if path not in MUTMUT["only_mutate"] or not defines(
            ROOT / path, match["cls"], match["function"]
        ):
            stale.append(name)
    assert stale == [], "judged names whose function moved or went (re-judge them): " + str(stale)


def test_the_name_check_sees_a_moved_function() -> None:
    match = NAME.fullmatch("roncho._http.xǁResponseParserǁ_maybe_read_one_head__mutmut_8")
    assert match and (match["module"], match["cls"], match["function"]) == (
        "roncho._http",
        "ResponseParser",
        "_maybe_read_one_head",
    )
    match = NAME.fullmatch("roncho._checks.x__walk__mutmut_10")
    assert match and (match["cls"], match["function"]) == (None, "_walk")
    assert defines(ROOT / "roncho" / "_http.py", "ResponseParser", "_maybe_read_one_head")
    assert not defines(ROOT / "roncho" / "_http.py", "ResponseParser", "_take_event")


# Written whole by scripts/render_clients.py from their asyncio twins (which are mutated), and
# held by its --check: mutating them would test the generator's output, not hand-written code.
GENERATED_WHOLE = {
    "roncho/_client.py",
    "roncho/_stream.py",
    "roncho/delivery.py",
    "roncho/_derivation_wait.py",
}


def test_every_hand_written_module_is_mutated() -> None:
    library = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "roncho").rglob("*.py")
        if path.relative_to(ROOT).parts[1] not in ("testing", "workbook")
    }
    assert sorted(library - GENERATED_WHOLE - set(MUTMUT["only_mutate"])) == []
    assert sorted(GENERATED_WHOLE & set(MUTMUT["only_mutate"])) == []
