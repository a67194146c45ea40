"""docs/answers.md: per question, what memoryd should do, generated from results/.

Why: the answers were paragraphs in three places (results/, compatibility.md, requirements.md)
that could disagree, and no page said per question what memoryd should do, with the latest
value for each server version and "not yet measured" where that is so. The page is written by
scripts/render_answers.py (its --check is a scripts/test.sh stage); these hold what it says.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import render_answers  # noqa: E402

PAGE = ROOT / "docs" / "answers.md"
ROW = re.compile(r"^\| \*\*(Q\d+)\*\* [^|]+ \| (.+) \|\s*$")


def _rows(text: str) -> dict[str, list[str]]:
    rows = {}
    for line in text.splitlines():
        match = ROW.match(line)
        if match:
            rows[match[1]] = [c.strip() for c in re.split(r"(?<!\\)\|", match[2])]
    return rows


def test_the_page_is_what_the_record_gives() -> None:
    assert PAGE.read_text(encoding="utf-8") == render_answers.render()
    assert render_answers.main(["--check"]) == 0


def test_one_row_per_question_each_with_one_imperative_sentence() -> None:
    rows = _rows(PAGE.read_text(encoding="utf-8"))
    assert list(rows) == [f"Q{i}" for i in range(1, 11)]
    for question, cells in rows.items():
        decision = cells[0]
        assert decision.endswith("."), question
        assert ". " not in decision.replace("e.g. ", ""), f"{question}: more than one sentence"
        first = decision.split()[0]
        assert first[0].isupper() and not first.endswith(("s", "ed")), f"{question}: {first}"


def test_the_owners_version_says_not_yet_measured_with_the_command_that_measures_it() -> None:
    text = PAGE.read_text(encoding="utf-8")
    head = next(line for line in text.splitlines() if line.startswith("| question |"))
    columns = [c.strip() for c in head.strip("|").split("|")]
    owner = columns.index("3.2.0 (the owner)") - 1  # the question cell is not in _rows
    assert "3.0.12" in columns
    investigate = (ROOT / "scripts" / "investigate.py").read_text(encoding="utf-8")
    flags = set(re.findall(r'add\(\s*"(--[a-z-]+)"', investigate))
    for question, cells in _rows(text).items():
        cell = cells[owner]
        command = re.fullmatch(
            r"not yet measured, run `(bash scripts/investigate\.sh [^`]+)`", cell
        )
        assert command, f"{question}: {cell}"
        words = command[1].split()
        assert {w for w in words if w.startswith("--")} <= flags
        only = words[words.index("--only") + 1 :]
        assert only and all(f'"{n}"' in investigate for n in only), only


def test_the_acceptance_command_takes_the_flags_it_is_given() -> None:
    test_real = (ROOT / "scripts" / "test-real.sh").read_text(encoding="utf-8")
    flags = [w for w in render_answers.ACCEPTANCE.split() if w.startswith("--")]
    assert "--expect-auth" in flags
    for flag in flags:
        assert re.search(rf"^\s+(?:[-a-z|]+\|)?{flag}[|)]", test_real, re.M), flag


def _kit_run(tmp_path: Path, date: str, kept: int) -> None:
    """A copy of a kit run started on ``date`` whose long summary was kept in ``kept`` of 10."""
    kit = ROOT / "results" / "2026-12-04" / "127.0.0.1-8000-auth-off-v3.0.12-stub-llm-flush-on"
    folder = tmp_path / date / kit.name
    shutil.copytree(kit, folder)
    manifest = folder / "manifest.json"
    text = manifest.read_text(encoding="utf-8").replace("2026-12-04T", f"{date}T")
    manifest.write_text(text, encoding="utf-8")
    trials = folder / "q10_context__long_summary_trials.csv"
    rows = ["trial,messages,wait,short_after_last,long_after_last"] + [
        f"{i},60,done,True,{i < kept}" for i in range(10)
    ]
    trials.write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_q10_says_its_long_summary_varies_with_the_rate(tmp_path: Path) -> None:
    """Held on copies of one kit run, so a new run in results/ does not change what it holds."""
    _kit_run(tmp_path, "2026-12-04", 7)
    rows = _rows(render_answers.render(tmp_path))
    assert "varies: 7/10 sessions kept the long summary on 3.0.12" in rows["Q10"][-2]
    _kit_run(tmp_path, "2026-12-05", 10)  # the latest run under the same conditions counts
    rows = _rows(render_answers.render(tmp_path))
    assert "steady: 10/10 sessions kept the long summary on 3.0.12" in rows["Q10"][-2]
    assert "7/10" not in rows["Q10"][-2]


def test_two_runs_with_one_answer_are_steady_and_counted(tmp_path: Path) -> None:
    kit = ROOT / "results" / "2026-12-01" / "127.0.0.1-8000-auth-off-v3.0.12-flush-on"
    for date in ("2026-12-01", "2026-12-02"):
        folder = tmp_path / date / kit.name
        shutil.copytree(kit, folder)
        manifest = folder / "manifest.json"
        text = manifest.read_text(encoding="utf-8").replace("2026-12-01T", f"{date}T")
        manifest.write_text(text, encoding="utf-8")
    rows = _rows(render_answers.render(tmp_path))
    assert rows["Q1"][-2] == "steady: the same answer in 2 runs on 3.0.12 under the same conditions"


def test_every_rate_on_the_page_is_worded_by_its_figures() -> None:
    text = PAGE.read_text(encoding="utf-8")
    rates = re.findall(r"(varies|steady): (\d+)/(\d+) ", text)
    assert rates
    for word, k, n in rates:
        assert word == ("varies" if 0 < int(k) < int(n) else "steady"), (word, k, n)


def test_every_evidence_link_is_a_result_file() -> None:
    text = PAGE.read_text(encoding="utf-8")
    links = re.findall(r"\]\((\.\./results/[^)]+)\)", text)
    assert len(links) > 20
    missing = [link for link in links if not (PAGE.parent / link).is_file()]
    assert missing == []


def test_an_owner_run_fills_its_column_and_decides(tmp_path: Path) -> None:
    """Once the owner's run is in results/, its answer replaces "not yet measured"."""
    kit = ROOT / "results" / "2026-12-01" / "127.0.0.1-8000-auth-off-v3.0.12-flush-on"
    owner = tmp_path / "2027-01-05" / "127.0.0.1-18000-auth-on-v3.2.0-flush-off"
    shutil.copytree(kit, tmp_path / "2026-12-01" / kit.name)
    owner.mkdir(parents=True)
    answer = json.loads((kit / "q6_workspace_delete.answer.json").read_text())
    answer.update(version="3.2.0", answer=answer["answer"].replace("within 3.0s", "within 7.5s"))
    (owner / "q6_workspace_delete.answer.json").write_text(json.dumps(answer))
    (owner / "manifest.json").write_text(
        json.dumps({"server": {"auth": True}, "deriver": {"flush": False}})
    )
    rows = _rows(render_answers.render(tmp_path))
    decision, kit_value, owner_value = rows["Q6"][:3]
    assert "(gone within 7.5 s of its delete here)" in decision  # the owner's version decides
    assert owner_value.startswith("*auth on, deriver batching, 2027-01-05:* With an active")
    assert "within 3.0s" in kit_value
    assert rows["Q7"][2].startswith("not yet measured, run `bash scripts/investigate.sh")
