#!/bin/sh
# Two sitefeed binaries measured at the same time, on a host whose speed drifts between
# runs a minute apart: the peer harness's `sitefeed serve` driver runs twice at once, each
# copy with its own mock site, port, store and scratch directory, one binary in each, and
# the binaries change copies every round. Both see the same host at the same moment, so a
# window of one compares with the same window of the other. The two share the cores (two
# services and two mock sites on them), so the figures are not those of a run alone: use
# the differences, not the levels.
#
#   BENCH=DIR sh bench/paired.sh BIN_A BIN_B
#
# BENCH is the peer harness (as for bench/three_tools.sh); the sitefeed driver runs with
# PY (default python3, with psutil). ROUNDS rounds (4) of ARGS (1,000 watches, three 20 s
# windows after 20 s). Prints each round's windows, then per window B's CPU per check and
# checks/s against A's. Scratch and results in OUT (/tmp/sitefeed-paired).
set -eu
: "${BENCH:?set BENCH to the peer harness directory}"
[ $# -eq 2 ] || { echo "usage: BENCH=DIR sh bench/paired.sh BIN_A BIN_B" >&2; exit 2; }
A=$(realpath "$1")
B=$(realpath "$2")
PY=${PY:-python3}
ROUNDS=${ROUNDS:-4}
ARGS=${ARGS:-"--m 1000 --warmup 20 --window 20 --windows 3"}
OUT=${OUT:-/tmp/sitefeed-paired}
for f in mocksite.py sitefeed_bench.py sitefeed_bench.toml benchutil.py; do
  [ -f "$BENCH/$f" ] || { echo "paired: no $f in $BENCH" >&2; exit 2; }
done
for bin in "$A" "$B"; do
  [ -x "$bin" ] || { echo "paired: no binary at $bin" >&2; exit 2; }
done
rm -rf "$OUT" && mkdir -p "$OUT"
# Copy 1 as it is; copy 2 on other ports and paths (the driver names them in its code).
cp -r "$BENCH" "$OUT/h1"
cp -r "$BENCH" "$OUT/h2"
sed -i 's/8181/8182/g; s#/tmp/sfbench#/tmp/sfbench2#g; s/default=8912/default=8913/' \
  "$OUT/h2/sitefeed_bench.py" "$OUT/h2/sitefeed_bench.toml"
r=1
while [ "$r" -le "$ROUNDS" ]; do
  # Odd rounds: A in copy 1; even rounds: A in copy 2.
  if [ $((r % 2)) -eq 1 ]; then HA=h1; HB=h2; else HA=h2; HB=h1; fi
  # shellcheck disable=SC2086
  SITEFEED_BIN=$A $PY "$OUT/$HA/sitefeed_bench.py" $ARGS --site-mode counter \
    --out "$OUT/a-$r.json" >"$OUT/a-$r.log" 2>&1 &
  PA=$!
  # shellcheck disable=SC2086
  SITEFEED_BIN=$B $PY "$OUT/$HB/sitefeed_bench.py" $ARGS --site-mode counter \
    --out "$OUT/b-$r.json" >"$OUT/b-$r.log" 2>&1 &
  PB=$!
  wait "$PA" || { echo "paired: round $r of A failed, see $OUT/a-$r.log" >&2; exit 1; }
  wait "$PB" || { echo "paired: round $r of B failed, see $OUT/b-$r.log" >&2; exit 1; }
  r=$((r + 1))
done
$PY - "$OUT" "$ROUNDS" <<'EOF'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
ms, cps = [], []
for r in range(1, rounds + 1):
    a = json.load(open(f"{out}/a-{r}.json"))
    b = json.load(open(f"{out}/b-{r}.json"))
    for name, run in (("A", a), ("B", b)):
        w = run["windows"]
        print(f"round {r} {name}: ms per check " + ", ".join(str(x["cpu_ms_per_check"]) for x in w)
              + "; checks/s " + ", ".join(str(x["checks_per_s"]) for x in w) + f"; VmHWM {run['VmHWM']}")
    for x, y in zip(a["windows"], b["windows"]):
        ms.append(100 * (y["cpu_ms_per_check"] / x["cpu_ms_per_check"] - 1))
        cps.append(100 * (y["checks_per_s"] / x["checks_per_s"] - 1))
for what, d in (("CPU per check", ms), ("checks/s", cps)):
    print(f"B against A, {what}: median {statistics.median(d):+.1f}%, mean {statistics.mean(d):+.1f}%, "
          f"higher in {sum(1 for x in d if x > 0)} of {len(d)} windows, range {min(d):+.1f}% to {max(d):+.1f}%")
EOF
