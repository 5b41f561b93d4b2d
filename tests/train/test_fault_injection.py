"""SIGKILL and ENOSPC at every os call of a checkpoint save and of Function.save (see _fault_worker.py)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_every_fault_point_leaves_a_loadable_checkpoint_and_an_exact_resume(tmp_path):
    run = subprocess.run([sys.executable, os.path.join(HERE, "_fault_worker.py"), str(tmp_path)], cwd=HERE,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    print(report)
    assert report["model save os calls"] >= 4
    assert sum(report["model outcomes"].values()) == report["model fault points"]
    for what in ("checkpoint", "checkpoint (preserve_all)"):
        assert report[what + " save os calls"] >= 8
        assert sum(report[what + " outcomes"].values()) == report[what + " fault points"]
        # both sides of the commit point were hit: some faults resumed from the previous checkpoint, some the new
        assert any("previous" in k for k in report[what + " outcomes"])
        assert any("new" in k for k in report[what + " outcomes"])
    assert any("old" in k for k in report["model outcomes"]) and any("new" in k for k in report["model outcomes"])
