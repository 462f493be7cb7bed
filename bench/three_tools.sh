#!/bin/sh
# sitefeed, urlwatch and changedetection.io on the same workload in one run, and the
# table of `bench/README.md` with the peers' ratios to sitefeed: 1,000 watches of the
# mock news site's 49–59 KB pages (485 links), every fetch a new version, so every check
# is a full one. sitefeed runs first and again last, so that a machine whose speed moved
# during the run shows it.
#
#   BENCH=DIR sh bench/three_tools.sh [BIN]
#
# BENCH is the peer harness (the mock site, the `sitefeed serve` driver and the peers'
# drivers; its README has the peers' one-time setup from PyPI). BIN, the sitefeed binary,
# defaults to target/release/sitefeed, as `cargo build --release` leaves it. The peers
# run from their virtual environments: UW_PY (default /tmp/venv-uw/bin/python, which runs
# the sitefeed driver too) and CD_PY (default /tmp/venv-cd/bin/python), each with psutil.
# Raw results and logs go to OUT (default /tmp/sitefeed-three-tools); the table is
# printed. About 12 minutes.
set -eu
: "${BENCH:?set BENCH to the peer harness directory}"
BIN=${1:-target/release/sitefeed}
UW_PY=${UW_PY:-/tmp/venv-uw/bin/python}
CD_PY=${CD_PY:-/tmp/venv-cd/bin/python}
OUT=${OUT:-/tmp/sitefeed-three-tools}
for f in sitefeed_bench.py peer_urlwatch.py peer_changedetection.py; do
  [ -f "$BENCH/$f" ] || { echo "three_tools: no $f in $BENCH" >&2; exit 2; }
done
[ -x "$BIN" ] || { echo "three_tools: no sitefeed binary at $BIN (cargo build --release)" >&2; exit 2; }
for py in "$UW_PY" "$CD_PY"; do
  [ -x "$py" ] || { echo "three_tools: no Python at $py (see the harness's README)" >&2; exit 2; }
done
mkdir -p "$OUT"
SITE="--version-by counter --counter-step 1"
failed() {
  echo "three_tools: $1 failed, see $OUT/$1.log" >&2
  exit 1
}
sitefeed() {
  SITEFEED_BIN=$BIN "$UW_PY" "$BENCH/sitefeed_bench.py" --m 1000 --warmup 20 --window 20 \
    --windows 3 --site-mode counter --out "$OUT/sitefeed-$1.json" >"$OUT/sitefeed-$1.log" 2>&1 ||
    failed "sitefeed-$1"
}
echo "three_tools: sitefeed, first run" >&2
sitefeed 1
echo "three_tools: urlwatch" >&2
"$UW_PY" "$BENCH/peer_urlwatch.py" --m 1000 --runs 3 --site-extra "$SITE" \
  --out "$OUT/urlwatch.json" >"$OUT/urlwatch.log" 2>&1 || failed urlwatch
echo "three_tools: changedetection.io" >&2
"$CD_PY" "$BENCH/peer_changedetection.py" --m 1000 --warmup 20 --window 40 --windows 3 \
  --site-extra "$SITE" --out "$OUT/changedetection.json" >"$OUT/changedetection.log" 2>&1 ||
  failed changedetection
echo "three_tools: sitefeed, second run" >&2
sitefeed 2
python3 - "$OUT" <<'EOF'
import json, statistics, sys
out = sys.argv[1]
def load(name):
    with open(f"{out}/{name}.json") as f:
        return json.load(f)
def spread(xs, fmt):
    xs = sorted(xs)
    return " / ".join(fmt.format(x) for x in (xs[0], statistics.median(xs), xs[-1]))
rows = []
sf = [load("sitefeed-1"), load("sitefeed-2")]
sf_median = statistics.median(w["cpu_ms_per_check"] for d in sf for w in d["windows"])
def row(name, parts, rss):
    cpu = [p["cpu_ms_per_check"] for p in parts]
    ratio = "" if name.startswith("sitefeed") else f" (**{statistics.median(cpu) / sf_median:.1f}×**)"
    rate = [p["checks_per_s"] for p in parts]
    rate_fmt = "{:.0f}" if min(rate) >= 100 else "{:.1f}"
    rows.append(f"| {name} | {spread(cpu, '{:.2f}')} ms{ratio} | {spread(rate, rate_fmt)} | {rss} |")
uw, cd = load("urlwatch"), load("changedetection")
row("sitefeed, run 1 (3 windows of 20 s)", sf[0]["windows"], f"{sf[0].get('VmHWM', '?')} (`VmHWM`)")
row("urlwatch (3 runs)", uw["runs"], f"{max(r['maxrss_mb'] for r in uw['runs'])} MB")
row("changedetection.io (3 windows of 40 s)", cd["windows"], f"{cd['load_peak_rss_mb']} MB")
row("sitefeed, run 2", sf[1]["windows"], f"{sf[1].get('VmHWM', '?')} (`VmHWM`)")
print("| tool | CPU per check (min / median / max; the peers' ratio to sitefeed's median) | checks/s | peak RSS |")
print("|---|---|---|---|")
print("\n".join(rows))
print(f"\nsitefeed's median over both runs: {sf_median:.3f} ms")
EOF
