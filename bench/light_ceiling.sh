#!/bin/sh
# The checks/s ceiling with a light site: the peer harness's `sitefeed serve` driver, run
# against pages captured from its mock site and served from memory by
# `bench/light_site.rs`, instead of the mock site rendering each page in Python. Both
# still share the machine's cores; what changes is that the site takes a few percent of
# them instead of a third. Every fetch is a new version, as with the mock site.
#
#   cargo build --release --bin sitefeed --example light_site
#   BENCH=DIR sh bench/light_ceiling.sh [BIN [LIGHT]]
#
# BENCH is the peer harness (as for bench/three_tools.sh). BIN defaults to
# target/release/sitefeed, LIGHT to target/release/examples/light_site. M watches (3000)
# of B base pages (50) with V versions each (96): a run must not fetch a page more than
# V times (the JSON's `wrapped` says if it did). RUNS runs (2) of the driver with ARGS
# (two 20 s windows after 20 s). Scratch and results in OUT (/tmp/sitefeed-light).
set -eu
: "${BENCH:?set BENCH to the peer harness directory}"
BIN=$(realpath "${1:-target/release/sitefeed}")
LIGHT=$(realpath "${2:-target/release/examples/light_site}")
M=${M:-3000}
B=${B:-50}
V=${V:-96}
RUNS=${RUNS:-2}
ARGS=${ARGS:-"--warmup 20 --window 20 --windows 2"}
OUT=${OUT:-/tmp/sitefeed-light}
CAPTURE_PORT=${CAPTURE_PORT:-8977}
for f in mocksite.py sitefeed_bench.py benchutil.py; do
  [ -f "$BENCH/$f" ] || { echo "light_ceiling: no $f in $BENCH" >&2; exit 2; }
done
[ -x "$BIN" ] || { echo "light_ceiling: no sitefeed binary at $BIN" >&2; exit 2; }
[ -x "$LIGHT" ] || { echo "light_ceiling: no light_site at $LIGHT" >&2; exit 2; }
mkdir -p "$OUT"
PAGES="$OUT/pages-$B-$V"
if [ ! -f "$PAGES/p$((B - 1))-v$((V - 1)).html" ]; then
  echo "light_ceiling: capturing $B pages x $V versions" >&2
  rm -rf "$PAGES" && mkdir -p "$PAGES"
  python3 "$BENCH/mocksite.py" --port "$CAPTURE_PORT" --pages "$B" --version-by counter \
    --counter-step 1 >"$OUT/capture.log" 2>&1 &
  SITE_PID=$!
  trap 'kill "$SITE_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$CAPTURE_PORT/stats" >/dev/null && break; sleep 0.2; done
  b=0
  while [ "$b" -lt "$B" ]; do
    # Each fetch of a page is its next version: fetched in order, one after another.
    set --
    v=0
    while [ "$v" -lt "$V" ]; do
      set -- "$@" "http://127.0.0.1:$CAPTURE_PORT/site/$b/" -o "$PAGES/p$b-v$v.html"
      v=$((v + 1))
    done
    curl -sf "$@"
    b=$((b + 1))
  done
  kill "$SITE_PID"
  trap - EXIT
fi
# The driver as it is, with its mock site replaced by the light one (same PID: exec).
HARNESS="$OUT/harness"
rm -rf "$HARNESS" && cp -r "$BENCH" "$HARNESS"
cat >"$HARNESS/mocksite.py" <<EOF
import os, sys
args = sys.argv[1:]
def opt(name, default):
    return args[args.index(name) + 1] if name in args else default
os.execv("$LIGHT", ["$LIGHT", "--port", opt("--port", "8912"), "--pages", opt("--pages", "1000"),
                    "--dir", "$PAGES", "--stats-out", "$OUT/site-stats.json"])
EOF
r=1
while [ "$r" -le "$RUNS" ]; do
  # shellcheck disable=SC2086
  SITEFEED_BIN=$BIN python3 "$HARNESS/sitefeed_bench.py" --m "$M" $ARGS --site-mode counter \
    --out "$OUT/run-$r.json" >"$OUT/run-$r.log" 2>&1 ||
    { echo "light_ceiling: run $r failed, see $OUT/run-$r.log" >&2; exit 1; }
  python3 - "$OUT/run-$r.json" "$OUT/site-stats.json" "$r" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
site = json.load(open(sys.argv[2]))
for w in run["windows"]:
    print(f"run {sys.argv[3]}: {w['checks_per_s']} checks/s, {w['cpu_ms_per_check']} ms per check, "
          f"sitefeed {w['cpu_util']} cores, site {w['site_cpu_util']} cores")
print(f"run {sys.argv[3]}: VmHWM {run['VmHWM']}, fetches past the captured versions: {site['wrapped']}")
EOF
  r=$((r + 1))
done
