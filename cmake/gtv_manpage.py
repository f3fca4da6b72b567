#!/usr/bin/env python3
"""Writes a man page (roff, section 1) from a program's own --help output, so the page says what the program says.

usage: gtv_manpage.py --program PATH --name NAME --summary TEXT --version V --see-also TEXT --output FILE
                      [--commands]

Writes FILE and FILE.gz. The --help text becomes SYNOPSIS (its usage lines) and DESCRIPTION (the rest, verbatim
in a no-fill block so the aligned option tables stay aligned). With --commands, the program is a command suite
that lists its commands under a "commands:" heading: each listed COMMAND's own `PROGRAM help COMMAND` text follows
under COMMANDS. The programs run in the C locale with Qt's offscreen platform, so no display is needed.
"""
import argparse
import gzip
import os
import re
import subprocess
import sys


def run_help(program, args):
    env = dict(os.environ)
    env.update({"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen"})
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    # A sanitizer build's leak report at exit would fail the build over a page of help text.
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    result = subprocess.run([program, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=60, check=False)
    if result.returncode != 0 or not result.stdout.strip():
        sys.exit(f"gtv_manpage: `{program} {' '.join(args)}` exited {result.returncode} with "
                 f"{len(result.stdout)} bytes of output: {result.stderr.strip()}")
    # Qt prints the path it was started with; the page names the installed command.
    return result.stdout.replace(program, os.path.basename(program))


def escape(line):
    """One line of plain text as roff: backslashes and hyphens escaped, no line read as a request."""
    line = line.replace("\\", "\\e").replace("-", "\\-")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def verbatim(text):
    lines = [escape(line.rstrip()) for line in text.strip("\n").splitlines()]
    return [".nf"] + [line if line else "" for line in lines] + [".fi"]


def split_usage(text, name):
    """Usage lines (first line starts with usage:, continuation lines are indented) and the rest."""
    lines = text.splitlines()
    usage = []
    index = 0
    if lines and re.match(r"(?i)usage:", lines[0]):
        usage.append(re.sub(r"(?i)^usage:\s*", "", lines[0]))
        index = 1
        while index < len(lines) and lines[index].startswith(" ") and lines[index].strip():
            usage.append(lines[index].strip())
            index += 1
    if not usage:
        usage = [name]
    return usage, "\n".join(lines[index:])


def listed_commands(text):
    """The command names under a 'commands:' heading: indented lines up to the next blank line."""
    names = []
    in_list = False
    for line in text.splitlines():
        if line.strip().lower() == "commands:":
            in_list = True
            continue
        if in_list:
            if not line.strip():
                break
            names.append(line.split()[0])
    return names


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--summary", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--commands", action="store_true")
    parser.add_argument("--see-also", required=True)
    options = parser.parse_args()

    help_text = run_help(options.program, ["--help"])
    usage, description = split_usage(help_text, options.name)
    page = [
        f'.TH {options.name.upper()} 1 "" "gtv {options.version}" "User Commands"',
        ".SH NAME",
        f"{escape(options.name)} \\- {escape(options.summary)}",
        ".SH SYNOPSIS",
    ]
    for number, line in enumerate(usage):
        if number:
            page.append(".br")
        page.append(escape(line))
    page += [".SH DESCRIPTION"] + verbatim(description)
    if options.commands:
        commands = listed_commands(help_text)
        if not commands:
            sys.exit(f"gtv_manpage: --commands given but `{options.program} --help` lists no commands")
        page.append(".SH COMMANDS")
        for command in commands:
            page += [".SS " + escape(command)] + verbatim(run_help(options.program, ["help", command]))
    page += [".SH SEE ALSO", escape(options.see_also)]

    text = "\n".join(page) + "\n"
    with open(options.output, "w", encoding="utf-8") as out:
        out.write(text)
    # The installed copy: gzip -9 with no name or time stamp inside, so equal pages give equal files.
    with open(options.output + ".gz", "wb") as raw, gzip.GzipFile(filename="", mode="wb", compresslevel=9,
                                                                   fileobj=raw, mtime=0) as out:
        out.write(text.encode("utf-8"))


if __name__ == "__main__":
    main()
