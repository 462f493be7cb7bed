#!/bin/sh
# The instructions a sequence of checks costs, counted by valgrind's callgrind: `sitefeed
# replay` runs snapshots of one page through the check pipeline (analysis and commit, on a
# temporary store), and the count of the replay's own thread is printed. Counts repeat to
# a few parts in ten thousand for the same binary and snapshots, whatever else the machine
# is doing, so two builds compare without interleaved runs; the wall-clock benches stay
# the measure of time (a count weighs every instruction alike).
#
#   sh bench/replay_count.sh DIR BASE_URL [BIN...]
#
# DIR holds the snapshots (`*.html`, replayed in name order), BASE_URL is the page's URL.
# With the mock news site of the peer harness running (counter mode, every fetch a new
# version), 41 snapshots of its first page are taken with
#   for v in $(seq -w 0 40); do curl -s http://127.0.0.1:8977/site/0/ -o DIR/v0$v.html; done
# BIN defaults to target/release/sitefeed. Needs valgrind (Debian's package).
set -eu
if [ $# -lt 2 ]; then
  echo "usage: sh bench/replay_count.sh DIR BASE_URL [BIN...]" >&2
  exit 2
fi
DIR=$1
BASE=$2
shift 2
if ! ls "$DIR"/*.html >/dev/null 2>&1; then
  echo "replay_count: no snapshots (*.html) in $DIR" >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "replay_count: valgrind is not installed" >&2; exit 2; }
[ $# -gt 0 ] || set -- target/release/sitefeed
OUT=${OUT:-/tmp/sitefeed-replay-count}
mkdir -p "$OUT"
for BIN in "$@"; do
  name=$(basename "$BIN")
  if ! valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.cg" \
    "$BIN" replay "$DIR"/*.html --base-url "$BASE" >"$OUT/$name.items" 2>"$OUT/$name.log"; then
    echo "replay_count: $BIN failed, see $OUT/$name.log" >&2
    exit 1
  fi
  # The replay's thread: everything under the replay loop, not sled's background threads.
  steps=$(callgrind_annotate --inclusive=yes "$OUT/$name.cg" 2>/dev/null |
    awk '/sitefeed::offline::replay_steps/ { gsub(",", "", $1); print $1; exit }')
  analyse=$(callgrind_annotate --inclusive=yes "$OUT/$name.cg" 2>/dev/null |
    awk '/sitefeed::analysis::analyse( |$)/ { gsub(",", "", $1); print $1; exit }')
  items=$(wc -l <"$OUT/$name.items")
  echo "$name: replay $steps instructions, analysis $analyse, $items items"
done
