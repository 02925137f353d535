#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One manual page, checked; TAP.

  test-man.py MANDOC GROFF PAGE [TOOL]

The page renders without a warning, by mandoc's linter and by groff as
man(1) runs it, and has the sections a reader looks for.  With TOOL, every
option TOOL --help lists is in the page's OPTIONS section, so an option
added to a tool without its page fails here, and TOOL --version says
which tool and version it is.

An option line of --help starts with 2 to 8 spaces and a '-'; its options
are the words -x and --long (without any =ARG) from there up to the first
word that is neither an option nor an argument name in capitals (PID,
FILE, ADDR[:LEN]).  Deeper-indented lines continue a description."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "lib"))
from tap import Tap  # noqa: E402

OPTION = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9-]*")
ARGUMENT = re.compile(r"[A-Z][A-Z0-9_\[\]:.=|-]*")
HEADING = re.compile(r"[A-Z][A-Z ]*[A-Z]")


def run(argv):
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout, r.stderr


def help_options(text):
    """The options of --help's option lines, in order."""
    found = []
    for line in text.splitlines():
        m = re.match(r" {2,8}(-.*)", line)
        if not m:
            continue
        for word in m.group(1).split():
            word = word.rstrip(",")
            if OPTION.fullmatch(word.split("=", 1)[0]):
                found.append(word.split("=", 1)[0])
            elif not ARGUMENT.fullmatch(word):
                break
    return found


def unbalanced_quotes(text):
    """Lines where a rendered quote (Ql, Sq) opens inside another or closes
    none: the mark of a macro that swallowed its neighbour's delimiter."""
    bad, depth = [], 0
    for line in text.splitlines():
        for ch in line:
            if ch == "\u2018":
                depth += 1
                if depth > 1:
                    bad.append(line.strip())
            elif ch == "\u2019":
                depth -= 1
                if depth < 0:
                    bad.append(line.strip())
                    depth = 0
        if not line.strip():
            depth = 0
    return bad


def sections(text):
    """{heading: body} of a page rendered as plain text."""
    out, name = {}, None
    for line in text.splitlines():
        if HEADING.fullmatch(line):
            name = line
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out


README = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "README.md")


def exit_table(tool):
    """{status: meaning} of README.md's exit status table, for @tool's column."""
    rows, columns = {}, None
    with open(README, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| status |"):
                columns = cells
            elif columns and re.fullmatch(r"\d+", cells[0]) and len(cells) == len(columns):
                if tool in columns and cells[columns.index(tool)] == "yes":
                    rows[int(cells[0])] = cells[1]
            elif columns and not line.startswith("|"):
                break
    return rows


def page_statuses(section):
    """The statuses an EXIT STATUS section lists, as mandoc -T ascii renders its tags."""
    return {int(m.group(1)) for m in re.finditer(r"^ {5,8}(\d+) ", section, re.M)}


def help_statuses(text):
    """The statuses of --help's "Exit status" table: lines "  N  meaning"."""
    after = text.split("Exit status", 1)[1] if "Exit status" in text else ""
    return {int(m.group(1)) for m in re.finditer(r"^  (\d+)  \S", after, re.M)}


def main():
    if len(sys.argv) not in (4, 5):
        print("usage: test-man.py MANDOC GROFF PAGE [TOOL]", file=sys.stderr)
        return 2
    mandoc, groff, page = sys.argv[1:4]
    tool = sys.argv[4] if len(sys.argv) == 5 else None
    name = page.rsplit("/", 1)[-1]
    t = Tap()

    rc, out, err = run([mandoc, "-T", "lint", "-W", "warning", page])
    t.check(rc == 0 and not out and not err, "%s: mandoc -T lint finds nothing" % name,
            out + err)
    rc, out, err = run([groff, "-mandoc", "-ww", "-z", page])
    t.check(rc == 0 and not out and not err, "%s: groff -ww renders it without a warning" %
            name, out + err)

    rc, out, err = run([mandoc, "-T", "utf8", page])
    bad = unbalanced_quotes(re.sub(".\b", "", out))
    t.check(rc == 0 and not bad, "%s: its quotes pair up as rendered" % name,
            "\n".join(bad))

    rc, out, err = run([mandoc, "-T", "ascii", page])
    text = re.sub(".\b", "", out)
    secs = sections(text)
    want = ["NAME", "DESCRIPTION", "SEE ALSO"]
    if name.endswith(".1"):
        want = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES",
                "SEE ALSO"]
    t.check(rc == 0 and all(s in secs for s in want),
            "%s: has %s" % (name, ", ".join(want)), "sections: %s" % list(secs))
    if not tool:
        return t.done()

    rc, out, err = run([tool, "--version"])
    tool_name = os.path.basename(tool)
    t.check(rc == 0 and re.fullmatch(r"%s \d+\.\d+\.\d+( \(snapshot format \d+\.\d+\))?\n" %
                                     re.escape(tool_name), out) is not None and not err,
            "%s --version names the tool and its version" % tool_name, out + err)

    rc, out, err = run([tool, "--help"])
    options = help_options(out)
    if not t.check(rc == 0 and options, "%s --help exits 0 and lists options" % tool, out + err):
        return t.done()
    documented = secs.get("OPTIONS", "")
    for opt in options:
        t.check(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), documented),
                "%s documents %s in OPTIONS" % (name, opt))

    table = exit_table(tool_name)
    t.check(table, "README.md's exit status table has a column for %s" % tool_name)
    got = page_statuses(secs.get("EXIT STATUS", ""))
    t.check(got == set(table), "%s lists the exit statuses of the shared table" % name,
            "page: %s, table: %s" % (sorted(got), sorted(table)))
    got = help_statuses(out)
    t.check(got == set(table), "%s --help lists the exit statuses of the shared table" %
            tool_name, "--help: %s, table: %s" % (sorted(got), sorted(table)))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
