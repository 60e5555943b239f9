#!/usr/bin/env bash
# Checks the documentation and the layout of the repository, as CI does:
#   - every relative link in a tracked Markdown file resolves to a tracked file or folder
#     (anchors into tracked Markdown files must name one of its headings);
#   - no Markdown file links or points into ../shared (a folder outside the repository);
#   - no two tracked paths (files or folders) differ only by case, which a case-insensitive
#     file system (a Mac's default) would merge into one;
#   - docs/PERFORMANCE.md stays at most 400 lines (its history is docs/PERFORMANCE-HISTORY.md).
# Prints every offender and exits 1 if there is any. Needs only git, bash and python3.
#
#   scripts/check-docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - <<'PY'
import os, posixpath, re, subprocess, sys, unicodedata
from urllib.parse import unquote

MAX_PERFORMANCE_LINES = 400
listing = subprocess.run(["git", "ls-files", "-z"], check=True, stdout=subprocess.PIPE).stdout
tracked = [p for p in listing.decode("utf-8").split("\0") if p]
# A path counts only if it is in the work tree too (a file deleted but not yet staged is gone).
files = {p for p in tracked if os.path.lexists(p)}
folders = set()
for path in files:
    parts = path.split("/")
    for i in range(1, len(parts)):
        folders.add("/".join(parts[:i]))
problems = []

# --- paths that differ only by case ---------------------------------------------------------
by_folded = {}
for path in files | folders:
    by_folded.setdefault(path.casefold(), set()).add(path)
for spellings in sorted(by_folded.values(), key=lambda s: sorted(s)):
    if len(spellings) > 1:
        problems.append("paths differ only by case: " + ", ".join(sorted(spellings)))

# --- links in Markdown ----------------------------------------------------------------------
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_LINK = re.compile(r"""!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]*(?:\([^)\s]*\)[^)\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)""")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

def prose_lines(text):
    """Each line outside fenced code blocks: its number, the line, and the line with its code
    spans blanked (where links are looked for)."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        match = FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        yield number, line, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)

def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|__", "", heading.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return text.replace(" ", "-")

anchors_of = {}
def anchors(path):
    if path not in anchors_of:
        found, seen = set(), {}
        text = open(path, encoding="utf-8").read()
        for _, line, _ in prose_lines(text):
            heading = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
            if heading:
                base = slug(heading.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
        found |= set(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
        anchors_of[path] = found
    return anchors_of[path]

markdown = sorted(p for p in files if p.lower().endswith((".md", ".markdown")))
for doc in markdown:
    text = open(doc, encoding="utf-8").read()
    for number, raw, line in prose_lines(text):
        where = f"{doc}:{number}"
        # A mention in a code span counts too: `../shared/...` reads as a path to open.
        if "../shared" in raw:
            problems.append(f"{where}: points into ../shared, which is not in the repository")
        targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            targets.append(definition.group(1))
        for target in targets:
            target = target.strip("<>")
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue
            path_part, _, anchor = target.partition("#")
            path_part = unquote(path_part.split("?", 1)[0])
            if not path_part:
                resolved = doc
            else:
                base = "" if path_part.startswith("/") else posixpath.dirname(doc)
                resolved = posixpath.normpath(posixpath.join(base, path_part.lstrip("/")))
            if resolved == ".." or resolved.startswith("../"):
                problems.append(f"{where}: {target} leaves the repository")
                continue
            if resolved == ".":
                continue
            if resolved not in files and resolved not in folders:
                problems.append(f"{where}: {target} is not a tracked path")
                continue
            if anchor and resolved in files and resolved.lower().endswith(".md"):
                if unquote(anchor).lower() not in anchors(resolved):
                    problems.append(f"{where}: {target}: no heading of {resolved} has the anchor #{anchor}")

# --- the performance document's length ------------------------------------------------------
performance = "docs/PERFORMANCE.md"
if performance in files:
    lines = sum(1 for _ in open(performance, encoding="utf-8"))
    if lines > MAX_PERFORMANCE_LINES:
        problems.append(f"{performance}: {lines} lines, more than {MAX_PERFORMANCE_LINES} (history goes to docs/PERFORMANCE-HISTORY.md)")
else:
    problems.append(f"{performance} is missing")

for problem in problems:
    print(problem)
if problems:
    print(f"check-docs: {len(problems)} problem(s) in {len(markdown)} Markdown files and {len(files)} tracked files", file=sys.stderr)
    sys.exit(1)
print(f"check-docs: {len(markdown)} Markdown files, {len(files)} tracked files: links resolve, no path differs from another only by case, {performance} within {MAX_PERFORMANCE_LINES} lines")
PY
