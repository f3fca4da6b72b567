"""Fixtures of the gtv package's tests: the bundled recordings and gtv-cli, whose output the package must match.

ctest sets GTV_CLI (the gtv-cli just built), GTV_SOURCE_DIR and PYTHONPATH (the package just built); run by hand:
    GTV_CLI=build/app/cli/gtv-cli PYTHONPATH=build/python .venv/bin/python -m pytest python/tests
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("GTV_SOURCE_DIR", Path(__file__).resolve().parents[2]))
H200 = sorted((SOURCE_DIR / "resources/traces/h200x1").glob("*.json.gz"))
PYTORCH = sorted((SOURCE_DIR / "tests/data/pytorch").glob("*.json.gz"))
RANKS = [SOURCE_DIR / "tests/data/pytorch/ddp_gloo_rank0.json.gz", SOURCE_DIR / "tests/data/pytorch/ddp_gloo_rank1.json.gz"]
# An Nsight Systems SQLite export and a plain (not gzipped) Kineto JSON of the same synthetic two-GPU run.
OTHER_FORMATS = [SOURCE_DIR / "tests/data/nsys/two_gpus.sqlite", SOURCE_DIR / "tests/data/nsys/two_gpus_kineto.json"]
ALL_TRACES = H200 + PYTORCH + OTHER_FORMATS


def trace_id(path: Path) -> str:
    for suffix in (".json.gz", ".json", ".sqlite"):
        if path.name.endswith(suffix):
            return path.name.removesuffix(suffix)
    return path.name


class Cli:
    """gtv-cli, run as a user would."""

    def __init__(self, path: str) -> None:
        self.path = path

    def run(self, *args: object) -> subprocess.CompletedProcess:
        return subprocess.run([self.path, *map(str, args)], capture_output=True, text=True, timeout=600)

    def out(self, *args: object) -> str:
        r = self.run(*args)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def json(self, *args: object) -> dict:
        return json.loads(self.out(*args))


@pytest.fixture(scope="session")
def cli() -> Cli:
    path = os.environ.get("GTV_CLI", str(SOURCE_DIR / "build/app/cli/gtv-cli"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"gtv-cli not found at {path}: build it, or set GTV_CLI")
    return Cli(path)


@pytest.fixture(scope="session")
def traces_by_path():
    """Each bundled trace loaded once and analysed once for the whole session."""
    import gtv

    cache: dict[Path, object] = {}

    def get(path: Path):
        if path not in cache:
            cache[path] = gtv.load(path)
        return cache[path]

    return get
