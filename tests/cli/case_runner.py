"""What every gtv-cli test script shares: its checks, and the command line that runs one case of it.

A script defines case_NAME(args) functions and calls run_case(globals(), ...) from its main(); ctest runs
`script NAME --cli GTV_CLI --work DIR [more options]`.
"""
import argparse
import os
import shutil

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL: " + message)


def fresh_work_folder(work):
    """Empties the case's work folder; a folder an earlier run left read-only is made writable first."""
    if os.path.exists(work):
        for root, dirs, _ in os.walk(work):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)


def run_case(cases, required=(), optional=()):
    """Runs the case named on the command line (cases: the script's globals); returns the exit status."""
    parser = argparse.ArgumentParser()
    parser.add_argument("case")
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True)
    for option in required:
        parser.add_argument(option, required=True)
    for option in optional:
        parser.add_argument(option)
    args = parser.parse_args()
    fresh_work_folder(args.work)
    cases["case_" + args.case](args)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0
