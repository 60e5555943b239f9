#!/usr/bin/env bash
# Fails when a Linux-only symbol appears in Swift code outside a branch that only Linux compiles.
#
#   scripts/check-portability.sh            # Sources/, Tests/, Examples/, Benchmarks/
#   scripts/check-portability.sh PATH...    # only these files or folders
#
# The package declares macOS 15 but is built and tested on Linux only, so nothing else would
# notice an `eventfd` or a `Glibc.close` that a Mac cannot compile. A use counts as guarded when
# an enclosing `#if`/`#elseif` condition implies Linux: `os(Linux)`, `canImport(Glibc)` or
# `canImport(Musl)`, possibly joined with `&&` to anything (or with `||` to another such
# condition). An `#else` of `#if os(Linux)` is not guarded, nor is `!canImport(Darwin)` (it may
# be Windows). Comments and doc comments are ignored; string literals are checked for `/proc`
# paths only. Folders whose names start with "." (.build, .swiftpm) are skipped.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CHECK_PORTABILITY_ROOT="$root"
exec python3 - "$@" <<'PYTHON'
import os
import re
import sys

ROOT = os.environ["CHECK_PORTABILITY_ROOT"]
DEFAULT_FOLDERS = ["Sources", "Tests", "Examples", "Benchmarks"]

# Identifiers (matched in code, outside comments and string literals). A name ending in "_" is a
# prefix (EFD_NONBLOCK, epoll_wait); the others must match whole (O_DIRECT, not O_DIRECTORY).
LINUX_ONLY_NAMES = [
    "Glibc", "Musl", "eventfd", "EFD_", "epoll_", "fdatasync", "sync_file_range",
    "posix_fallocate", "fallocate", "pipe2", "accept4", "memfd_create", "prctl",
    "sched_getaffinity", "sched_setaffinity", "MSG_NOSIGNAL", "MSG_MORE", "O_DIRECT", "O_TMPFILE",
    "O_PATH", "CLOCK_MONOTONIC_RAW", "CLOCK_BOOTTIME", "SOCK_CLOEXEC", "SOCK_NONBLOCK",
    "TCP_CORK", "TCP_QUICKACK", "TCP_DEFER_ACCEPT", "TCP_USER_TIMEOUT", "TCP_CONGESTION",
    "TCP_INFO", "TCP_KEEPIDLE", "SO_PEERCRED", "signalfd", "timerfd_", "inotify_", "malloc_trim",
    "mallinfo", "mallinfo2", "gettid",
]
# Glibc imports SOCK_STREAM and friends as enum cases; Darwin as plain Int32 constants.
LINUX_ONLY_PATTERNS = [
    ("SOCK_*.rawValue", re.compile(r"\bSOCK_(?:STREAM|DGRAM|RAW|SEQPACKET|RDM)\s*\.\s*rawValue\b")),
]
for name in LINUX_ONLY_NAMES:
    if name.endswith("_"):  # a prefix, also inside a longer name (CZMQ_EFD_NONBLOCK)
        pattern = r"(?<![A-Za-z0-9])" + re.escape(name)
    else:
        pattern = r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])"
    LINUX_ONLY_PATTERNS.append((name, re.compile(pattern)))
# Matched inside string literals: a path under /proc ("/proc/self/exe", "/proc/\(pid)/status").
PROC_PATH = re.compile(r"(?<![A-Za-z0-9_.~/-])/proc(?=/|\s|$)")

LINUX_ATOMS = {"os(Linux)", "canImport(Glibc)", "canImport(Musl)"}


STRING_START = re.compile(r'(#*)("""|")')


# -- Lexing: blank out comments, and split code from string contents. ---------------------------

def lex(text):
    """Returns (code, strings), each as long as `text` with the same newlines: `code` has
    comments and string contents blanked (quotes kept), `strings` has only string contents."""
    code = list(text)
    strings = [c if c == "\n" else " " for c in text]
    n = len(text)
    i = 0
    # A stack of contexts: ("code", paren depth) for source or an interpolation, ("string",
    # hashes, multiline) for a literal.
    stack = [("code", 0)]

    def blank(start, end, keep_in_strings=False):
        for k in range(start, end):
            if text[k] != "\n":
                code[k] = " "
                if keep_in_strings:
                    strings[k] = text[k]

    while i < n:
        top = stack[-1]
        if top[0] == "code":
            c = text[i]
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                blank(i, end)
                i = end
                continue
            if text.startswith("/*", i):
                depth, k = 1, i + 2
                while k < n and depth:
                    if text.startswith("/*", k):
                        depth, k = depth + 1, k + 2
                    elif text.startswith("*/", k):
                        depth, k = depth - 1, k + 2
                    else:
                        k += 1
                blank(i, k)
                i = k
                continue
            m = STRING_START.match(text, i) if c in '#"' else None
            if m:
                hashes = len(m.group(1))
                multiline = m.group(2) == '"""'
                stack.append(("string", hashes, multiline))
                i = m.end()
                continue
            if c == "(" and len(stack) > 1:
                stack[-1] = ("code", top[1] + 1)
            elif c == ")" and len(stack) > 1:
                if top[1] == 0:
                    stack.pop()  # the end of an interpolation: back in the string
                else:
                    stack[-1] = ("code", top[1] - 1)
            i += 1
            continue
        # Inside a string literal.
        _, hashes, multiline = top
        closing = ('"""' if multiline else '"') + "#" * hashes
        escape = "\\" + "#" * hashes
        if text.startswith(closing, i):
            stack.pop()
            i += len(closing)
            continue
        if text.startswith(escape + "(", i):
            blank(i, i + len(escape) + 1)
            stack.append(("code", 0))
            i += len(escape) + 1
            continue
        if text.startswith(escape, i) and i + len(escape) < n:
            blank(i, i + len(escape) + 1, keep_in_strings=True)
            i += len(escape) + 1
            continue
        if text[i] == "\n" and not multiline:
            stack.pop()  # an unterminated literal; the compiler reports it
            i += 1
            continue
        blank(i, i + 1, keep_in_strings=True)
        i += 1
    return "".join(code), "".join(strings)


# -- #if conditions. --------------------------------------------------------------------------

TOKEN = re.compile(r"\s*(\|\||&&|!|\(|\)|[A-Za-z_][A-Za-z0-9_]*\s*\((?:[^()]|\([^()]*\))*\)|[A-Za-z_][A-Za-z0-9_]*|\S)")


def parse_condition(source):
    """Parses `a && (b || !c)` into nested tuples; atoms are normalized strings."""
    tokens, pos = [], 0
    source = source.strip()
    while pos < len(source):
        m = TOKEN.match(source, pos)
        if not m:
            break
        tokens.append(re.sub(r"\s+", "", m.group(1)))
        pos = m.end()
    index = 0

    def peek():
        return tokens[index] if index < len(tokens) else None

    def take():
        nonlocal index
        index += 1
        return tokens[index - 1]

    def disjunction():
        node = conjunction()
        while peek() == "||":
            take()
            node = ("or", node, conjunction())
        return node

    def conjunction():
        node = unary()
        while peek() == "&&":
            take()
            node = ("and", node, unary())
        return node

    def unary():
        token = peek()
        if token == "!":
            take()
            return ("not", unary())
        if token == "(":
            take()
            node = disjunction()
            if peek() == ")":
                take()
            return node
        if token is None:
            return ("atom", "")
        return ("atom", take())

    return disjunction()


def implies_linux(node, negated=False):
    """Whether the condition holding (or, when `negated`, failing) means a Linux build."""
    kind = node[0]
    if kind == "atom":
        # `!os(Linux)` never implies Linux, and a failed `canImport(Darwin)` may be Windows.
        return not negated and node[1] in LINUX_ATOMS
    if kind == "not":
        return implies_linux(node[1], not negated)
    left, right = node[1], node[2]
    if (kind == "and") != negated:  # a && b, or !(a || b) == !a && !b
        return implies_linux(left, negated) or implies_linux(right, negated)
    return implies_linux(left, negated) and implies_linux(right, negated)


DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")


def check_file(path, shown):
    """Returns (problems, guarded_uses) for one file."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        return [f"{shown}: cannot read: {error}"], 0
    code, strings = lex(text)
    problems, guarded_uses = [], 0
    # One frame per open #if: the conditions seen so far and whether the current branch implies Linux.
    frames = []
    raw_lines = text.split("\n")
    for number, (code_line, string_line) in enumerate(zip(code.split("\n"), strings.split("\n")), 1):
        directive = DIRECTIVE.match(code_line)
        if directive:
            word, rest = directive.group(1), directive.group(2)
            if word == "if":
                condition = parse_condition(rest)
                frames.append({"previous": [condition], "guarded": implies_linux(condition), "line": number})
            elif not frames:
                problems.append(f"{shown}:{number}: #{word} without #if")
            elif word == "elseif":
                condition = parse_condition(rest)
                frame = frames[-1]
                # Reached only when every earlier condition failed.
                frame["guarded"] = implies_linux(condition) or any(implies_linux(p, negated=True) for p in frame["previous"])
                frame["previous"].append(condition)
            elif word == "else":
                frame = frames[-1]
                frame["guarded"] = any(implies_linux(p, negated=True) for p in frame["previous"])
            else:
                frames.pop()
            continue
        found = [name for name, pattern in LINUX_ONLY_PATTERNS if pattern.search(code_line)]
        if PROC_PATH.search(string_line):
            found.append('"/proc/')
        if not found:
            continue
        if any(frame["guarded"] for frame in frames):
            guarded_uses += len(found)
            continue
        source = raw_lines[number - 1].strip() if number <= len(raw_lines) else ""
        problems.append(f"{shown}:{number}: {', '.join(found)} outside an os(Linux)/canImport(Glibc) branch: {source}")
    for frame in frames:
        problems.append(f"{shown}:{frame['line']}: #if without #endif")
    return problems, guarded_uses


def swift_files(path):
    if os.path.isfile(path):
        yield path
        return
    for directory, folders, files in os.walk(path):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(directory, name)


def main(arguments):
    if arguments:
        targets = [(path, path) for path in arguments]
        missing = [path for path in arguments if not os.path.exists(path)]
        if missing:
            print(f"check-portability: no such file or folder: {', '.join(missing)}", file=sys.stderr)
            return 2
    else:
        targets = [(os.path.join(ROOT, folder), folder) for folder in DEFAULT_FOLDERS
                   if os.path.isdir(os.path.join(ROOT, folder))]
    problems, files, guarded = [], 0, 0
    for path, shown in targets:
        for file in swift_files(path):
            files += 1
            relative = os.path.join(shown, os.path.relpath(file, path)) if os.path.isdir(path) else shown
            found, uses = check_file(file, os.path.normpath(relative))
            problems += found
            guarded += uses
    if problems:
        for problem in problems:
            print(problem)
        print(f"check-portability: FAILED, {len(problems)} problem(s) in {files} Swift file(s): guard Linux-only "
              f"code with #if os(Linux) or #if canImport(Glibc) and give Darwin its own branch")
        return 1
    if files == 0:
        print("check-portability: no Swift files found", file=sys.stderr)
        return 2
    print(f"check-portability: OK, {files} Swift files, {guarded} Linux-only uses, all inside os(Linux)/canImport(Glibc) branches")
    return 0


sys.exit(main(sys.argv[1:]))
PYTHON
