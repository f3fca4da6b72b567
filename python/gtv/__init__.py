"""gtv: GPU Timeline Visualizer's analysis from Python.

    import gtv
    trace = gtv.load("run.json.gz")          # Chrome/Kineto JSON or an Nsight Systems SQLite export
    report = trace.analyze()                 # the report `gtv-cli analyze` prints
    print(report.text)
    report.kernels.to_pandas()               # tables through the Arrow C stream interface
    gtv.whatif(trace, ["streams"]).text      # `gtv-cli whatif --change streams`
    gtv.compare(before, after).text          # `gtv-cli compare`
    gtv.reduce([gtv.summarize(p) for p in rank_files]).text   # `gtv-cli summarize` each rank, `gtv-cli reduce`
    gtv.ranks.analyze("run/rank*.json.gz")   # the same on a Dask cluster (gtv/ranks.py)

Every text and JSON document is the one gtv-cli writes for the same input; bad input raises gtv.GtvError with the
CLI's one-line message. The C++ work runs with the GIL released, so threads can load and analyse traces at once.
"""

from ._core import GtvError, __version__
from ._table import Table
from ._trace import Trace, load
from ._report import Report
from ._whatif import Prediction, whatif
from ._compare import Comparison, compare
from ._summary import RankReport, Summary, reduce, summarize


def __getattr__(name):
    # gtv.ranks needs Dask: imported when first used, so that `import gtv` does not.
    if name == "ranks":
        import importlib

        return importlib.import_module(".ranks", __name__)
    raise AttributeError(f"module 'gtv' has no attribute {name!r}")


__all__ = [
    "GtvError",
    "Trace",
    "Report",
    "Table",
    "Prediction",
    "Comparison",
    "load",
    "whatif",
    "compare",
    "Summary",
    "RankReport",
    "summarize",
    "reduce",
    "__version__",
]
