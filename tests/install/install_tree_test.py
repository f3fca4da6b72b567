#!/usr/bin/env python3
"""Installs a build tree into a scratch prefix and runs the installed programs from there.

usage: install_tree_test.py [--cmake CMAKE] --build DIR --prefix DIR [--gui] [--runner]
Fails (exit 1, naming each problem) when a file of the install layout is missing, an installed program fails, or
the desktop file or AppStream metadata do not validate (each checked only when its validator is installed).
"""
import argparse
import gzip
import os
import shutil
import subprocess
import sys

APP_ID = "io.github.gtv.Gtv"
problems = []


def run(command, **kwargs):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False,
                            **kwargs)
    if result.returncode != 0:
        problems.append(f"`{' '.join(command)}` exited {result.returncode}:\n{result.stdout}")
    return result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--build", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--gui", action="store_true")
    parser.add_argument("--runner", action="store_true")
    options = parser.parse_args()
    prefix = os.path.abspath(options.prefix)
    shutil.rmtree(prefix, ignore_errors=True)
    run([options.cmake, "--install", options.build, "--prefix", prefix])
    if problems:
        return report()

    expected = [
        "bin/gtv-cli",
        "share/gtv/traces/h200x2/sequential.json.gz",
        "share/gtv/traces/h200x1/sequential-50iters.json.gz",
        "share/gtv/scenarios/sequential.md",
        "share/man/man1/gtv-cli.1.gz",
        "share/doc/gtv/README.md",
    ]
    if options.gui:
        expected += [
            "bin/gtv",
            f"share/applications/{APP_ID}.desktop",
            f"share/icons/hicolor/scalable/apps/{APP_ID}.svg",
            f"share/metainfo/{APP_ID}.metainfo.xml",
            "share/man/man1/gtv.1.gz",
        ]
    if options.runner:
        expected.append("libexec/gtv/gtv-run")
    for path in expected:
        if not os.path.isfile(os.path.join(prefix, path)):
            problems.append(f"not installed: {path}")

    # The installed programs, started from the prefix with no hint where their data is.
    env = {k: v for k, v in os.environ.items() if k not in ("GTV_DATA_DIR", "GTV_RUN", "GTV_RECORDINGS_DIR")}
    cli = os.path.join(prefix, "bin", "gtv-cli")
    version = run([cli, "--version"], env=env)
    if not version.startswith("gtv-cli "):
        problems.append(f"gtv-cli --version printed {version!r}")
    recording = os.path.join(prefix, "share/gtv/traces/h200x2/sequential.json.gz")
    analysis = run([cli, "analyze", recording], env=env)
    if "effective parallelism" not in analysis:
        problems.append(f"gtv-cli analyze of the installed recording printed no verdict:\n{analysis}")

    with gzip.open(os.path.join(prefix, "share/man/man1/gtv-cli.1.gz"), "rt", encoding="utf-8") as page:
        man = page.read()
    for command in ("info", "convert", "analyze", "compare", "list", "run"):
        if f".SS {command}\n" not in man:
            problems.append(f"the gtv-cli man page has no section for {command}")

    if options.gui:
        gui_env = dict(env, QT_QPA_PLATFORM="offscreen")
        gui_version = run([os.path.join(prefix, "bin", "gtv"), "--version"], env=gui_env)
        if "gtv " not in gui_version:
            problems.append(f"gtv --version printed {gui_version!r}")
        if shutil.which("desktop-file-validate"):
            run(["desktop-file-validate", os.path.join(prefix, f"share/applications/{APP_ID}.desktop")])
        if shutil.which("appstreamcli"):
            metainfo = os.path.join(prefix, f"share/metainfo/{APP_ID}.metainfo.xml")
            run(["appstreamcli", "validate", "--no-net", metainfo])
    return report()


def report():
    for problem in problems:
        print(f"FAIL: {problem}")
    if not problems:
        print("install tree: every file in place; the installed programs ran")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
