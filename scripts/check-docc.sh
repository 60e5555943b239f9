#!/usr/bin/env bash
# Builds the DocC documentation of every library product, as swift-docc-plugin would, without
# adding the plugin to Package.swift (every user of the package would resolve it):
#   1. `swift package dump-symbol-graph` (a debug build, then the public symbol graph of each
#      module: cheap after a normal `swift build`, whose build it reuses);
#   2. `docc convert` of each product's catalog, Sources/<Product>/Docs.docc, with its module's
#      symbol graphs, into .build/docc/<Product>.doccarchive.
# It fails on any warning or error in a catalog (an article or index.md): an unresolved symbol
# link (``Worker``), a topic or article reference (<doc:GettingStarted>) that resolves to
# nothing, a malformed directive. Warnings in the sources' doc comments are listed; with
# --strict they fail the check too (docc's --warnings-as-errors).
#
#   scripts/check-docc.sh            the catalogs must be clean; doc comments are reported
#   scripts/check-docc.sh --strict   everything must be clean
#
# Needs the toolchain's docc (next to swift, or DOCC=path) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

products=(ActionCore ActionClient ActionWorker ActionCoordinator ActionOperations)

strict=false
case "${1:-}" in
    "") ;;
    --strict) strict=true ;;
    *) echo "usage: scripts/check-docc.sh [--strict]" >&2; exit 2 ;;
esac

docc=${DOCC:-}
if [ -z "$docc" ]; then
    if command -v docc >/dev/null 2>&1; then
        docc=$(command -v docc)
    else
        docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
    fi
fi
[ -x "$docc" ] || { echo "check-docc: no docc found (looked next to swift); set DOCC=/path/to/docc" >&2; exit 2; }

out=.build/docc
rm -rf "$out"
mkdir -p "$out"

echo "== symbol graphs (swift package dump-symbol-graph)"
# It removes its output folder first, so no graph below is left over from an earlier run. It
# also extracts the graphs of modules the build did not make (test modules when only
# `swift build` ran) and then exits non-zero: what counts is that each product's graph is there.
dump_status=0
swift package dump-symbol-graph --minimum-access-level public >"$out/dump-symbol-graph.log" 2>&1 || dump_status=$?
graphs=$(sed -n 's/^Files written to //p' "$out/dump-symbol-graph.log" | tail -n 1)
if [ -z "$graphs" ] || [ ! -d "$graphs" ]; then
    cat "$out/dump-symbol-graph.log" >&2
    echo "check-docc: swift package dump-symbol-graph wrote no symbol graphs (exit $dump_status)" >&2
    exit 1
fi
for product in "${products[@]}"; do
    if [ ! -f "$graphs/$product.symbols.json" ]; then
        cat "$out/dump-symbol-graph.log" >&2
        echo "check-docc: no symbol graph for $product in $graphs" >&2
        exit 1
    fi
    # Each product's own graphs only (and those of its extensions to other modules, such as
    # ActionCore@Dispatch), so that each archive documents one module.
    mkdir -p "$out/symbol-graphs/$product"
    cp "$graphs/$product.symbols.json" "$out/symbol-graphs/$product/"
    cp "$graphs/$product"@*.symbols.json "$out/symbol-graphs/$product/" 2>/dev/null || true
done

failed=0
for product in "${products[@]}"; do
    catalog=Sources/$product/Docs.docc
    echo "== docc convert $catalog"
    if [ ! -d "$catalog" ]; then
        echo "check-docc: $product has no catalog at $catalog" >&2
        failed=1
        continue
    fi
    convert_status=0
    "$docc" convert "$catalog" \
        --additional-symbol-graph-dir "$out/symbol-graphs/$product" \
        --fallback-display-name "$product" \
        --fallback-bundle-identifier "org.actionbus.$product" \
        --output-path "$out/$product.doccarchive" \
        --diagnostics-file "$out/$product.diagnostics.json" \
        >"$out/$product.log" 2>&1 || convert_status=$?
    if [ "$convert_status" -ne 0 ] || [ ! -f "$out/$product.diagnostics.json" ]; then
        cat "$out/$product.log" >&2
        echo "check-docc: docc convert failed for $product (exit $convert_status)" >&2
        failed=1
        continue
    fi
    python3 - "$out/$product.diagnostics.json" "$PWD/$catalog" "$strict" "$PWD" <<'PY' || failed=1
import json, sys
from urllib.parse import unquote, urlparse

path, catalog, strict, root = sys.argv[1], sys.argv[2], sys.argv[3] == "true", sys.argv[4]
diagnostics = json.load(open(path)).get("diagnostics", [])
in_catalog, in_comments = [], []
for d in diagnostics:
    if d.get("severity") not in ("error", "warning"):
        continue
    source = unquote(urlparse(d.get("source") or "").path)
    start = (d.get("range") or {}).get("start") or {}
    where = source[len(root) + 1:] if source.startswith(root + "/") else (source or "(no file)")
    if start:
        where += f":{start.get('line')}:{start.get('column')}"
    line = f"  {where}: {d['severity']}: {' '.join(d.get('summary', '').split())}"
    for solution in d.get("solutions", [])[:2]:
        line += f"\n      fix: {' '.join(solution.get('summary', '').split())}"
    (in_catalog if source.startswith(catalog + "/") else in_comments).append(line)
if in_catalog:
    print(f"{len(in_catalog)} problem(s) in the catalog:")
    print("\n".join(in_catalog))
if in_comments:
    print(f"{len(in_comments)} problem(s) in doc comments{'' if strict else ' (reported, not failed; --strict fails on them)'}:")
    print("\n".join(in_comments))
if not in_catalog and not in_comments:
    print("  clean")
sys.exit(1 if in_catalog or (strict and in_comments) else 0)
PY
done

if [ "$failed" -ne 0 ]; then
    echo "check-docc: FAILED (archives and logs in $out)" >&2
    exit 1
fi
echo "check-docc: OK (archives in $out)"
