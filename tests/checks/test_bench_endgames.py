"""tools/bench_ai.py --endgames: the tables on disk and the Mosona solver's figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from zuniboard.ai import tablebase

REPO = Path(__file__).resolve().parents[2]


def test_bench_prints_the_tables_and_the_solver(tmp_path: Path) -> None:
    tablebase.save(tablebase.build("mosona", 3), tmp_path / "mosona")
    command = [sys.executable, str(REPO / "tools" / "bench_ai.py"), "--endgames", "--json", "--quiet"]
    command += ["--solver-pieces", "3", "--solver-nodes", "3000"]
    env = dict(os.environ, ZUNI_TABLEBASE_DIR=str(tmp_path))
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    report = json.loads(lines[-1])
    tables = {t["ruleset"]: t for t in report["tables"]}
    assert tables["mosona"]["max_pieces"] == 3 and len(tables["mosona"]["tables"]) == 3 * 4 // 2 - 3
    assert tables["kolowis"]["max_pieces"] == 0 and tables["kolowis"]["tables"] == []
    assert "| mosona | 3 | 3 |" in done.stdout and "| kolowis | 0 | 0 | 0 | none | - |" in done.stdout
    # 3000 nodes with 3-piece tables settle neither question (7-piece tables prove North's
    # win in 751,232 nodes: docs/rules.md); the answer and its figures are printed.
    assert [(s["team"], s["result"]) for s in report["solver"]] == [("north", None), ("south", None)]
    # (The C solver looks at its node limit every 65,536 nodes.)
    assert all(3000 <= s["nodes"] <= 65536 + 3000 and s["proof_number"] > 0 for s in report["solver"])
    assert sum("| does north win? | unsettled |" in line for line in lines) == 1
