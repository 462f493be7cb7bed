#!/bin/sh
# A profile-guided release build of sitefeed: the binary built once with counters, run on
# a training workload, then built again with the counts, so the compiler lays out and
# inlines the code the way a check runs it. On the peer harness's workload it spends
# about 10% less CPU per check than `cargo build --release` (bench/README.md, "A build
# guided by a profile").
#
#   rustup component add llvm-tools   # once: llvm-profdata, matching rustc's LLVM
#   sh scripts/pgo-build.sh           # about twice a release build's time
#
# Leaves the binary at $OUT/release/sitefeed (OUT: target/pgo) and the profile it was
# built with at $OUT/sitefeed.profdata. Needs curl. Everything runs on 127.0.0.1: the
# training serves the synthetic evaluation corpus (`sitefeed synth`) from
# `bench/light_site.rs` and watches it with `sitefeed serve` (pages of every kind and
# charset, deep watches, the feeds in every format, the API and the web pages), and
# replays each synthetic site offline. Code the training does not run is compiled as
# cold: a path that matters and is missing here belongs in it.
set -eu
cd "$(dirname "$0")/.."
OUT=${OUT:-target/pgo}
SECS=${SECS:-30}
WATCHES=${WATCHES:-300}
DEEP=${DEEP:-20}
PORT=${PORT:-18281}
SITE_PORT=${SITE_PORT:-18282}
HOST_TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
PROFDATA=$(rustc --print sysroot)/lib/rustlib/$HOST_TRIPLE/bin/llvm-profdata
if [ ! -x "$PROFDATA" ]; then
  echo "pgo-build: no llvm-profdata at $PROFDATA; run: rustup component add llvm-tools" >&2
  exit 2
fi
command -v curl >/dev/null || { echo "pgo-build: curl is needed" >&2; exit 2; }
SCRATCH=$(mktemp -d /tmp/sitefeed-pgo.XXXXXX)
SERVER_PID=
SITE_PID=
cleanup() {
  for pid in $SERVER_PID $SITE_PID; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# Build scripts write counts too: kept apart from the training's.
JUNK="$SCRATCH/junk/%p-%m.profraw"
DATA="$SCRATCH/profiles"

echo "pgo-build: 1/3 the instrumented build" >&2
# The binary alone, built as the last step builds it: with an example in the same build,
# the dependencies would take the dev-dependencies' features too, and their code would
# not match the profile. (A fixed path in the flags, so that a second run reuses this.)
LLVM_PROFILE_FILE=$JUNK RUSTFLAGS="-Cprofile-generate=$OUT/gen/profiles" \
  cargo build --release --locked --bin sitefeed --target-dir "$OUT/gen"
GEN="$OUT/gen/release"
# The site the training watches, a plain debug build of its own.
cargo build --locked --example light_site --target-dir "$OUT/site"

echo "pgo-build: 2/3 the training" >&2
export LLVM_PROFILE_FILE="$DATA/%p-%m.profraw"
"$GEN/sitefeed" synth "$SCRATCH/synth" --versions 40 >/dev/null
PAGES="$SCRATCH/pages"
mkdir -p "$PAGES"
b=0
for site in "$SCRATCH"/synth/*/; do
  [ -f "$site/0000.html" ] || continue
  "$GEN/sitefeed" replay "$site"*.html --base-url "http://127.0.0.1:$SITE_PORT/site/$b/" >/dev/null
  v=0
  for page in "$site"*.html; do
    ln -s "$(realpath "$page")" "$PAGES/p$b-v$v.html"
    v=$((v + 1))
  done
  b=$((b + 1))
done
[ "$b" -gt 0 ] || { echo "pgo-build: the synthetic corpus is empty" >&2; exit 1; }
"$OUT/site/debug/examples/light_site" --port "$SITE_PORT" \
  --pages $((WATCHES + DEEP)) --dir "$PAGES" --content-type text/html >"$SCRATCH/site.log" 2>&1 &
SITE_PID=$!
cat >"$SCRATCH/sitefeed.toml" <<EOF
[server]
listen = "127.0.0.1:$PORT"
base_url = "http://127.0.0.1:$PORT"
[storage]
path = "$SCRATCH/data"
[fetch]
per_host_delay_ms = 0
per_host_concurrency = 16
global_concurrency = 16
respect_robots = false
allow_private_addresses = true
retries = 0
[schedule]
strategy = "fixed"
initial_interval = "1s"
min_interval = "1s"
max_interval = "1d"
EOF
SITEFEED_CONFIG="$SCRATCH/sitefeed.toml" "$GEN/sitefeed" serve >"$SCRATCH/serve.log" 2>&1 &
SERVER_PID=$!
API="http://127.0.0.1:$PORT"
up=
for _ in $(seq 100); do
  if curl -sf "$API/healthz" >/dev/null && curl -sf "http://127.0.0.1:$SITE_PORT/stats" >/dev/null; then
    up=1
    break
  fi
  sleep 0.2
done
[ -n "$up" ] || { echo "pgo-build: the server or the light site did not start" >&2; exit 1; }
add() {
  curl -sf -X POST -H 'content-type: application/json' -d "$1" "$API/api/watches" |
    sed -n 's/^{"id":"\([^"]*\)".*/\1/p'
}
k=0
IDS=
while [ "$k" -lt "$WATCHES" ]; do
  id=$(add "{\"url\":\"http://127.0.0.1:$SITE_PORT/site/$k/\"}")
  [ "$k" -lt 12 ] && IDS="$IDS $id"
  k=$((k + 1))
done
while [ "$k" -lt $((WATCHES + DEEP)) ]; do
  add "{\"url\":\"http://127.0.0.1:$SITE_PORT/site/$k/\",\"depth\":2}" >/dev/null
  k=$((k + 1))
done
sleep "$SECS"
# What readers and the web pages ask: every feed format, fresh and revalidated, the API.
revalidated=0
for id in $IDS; do
  for ext in xml atom json; do
    for _ in 1 2 3; do
      etag=$(curl -s -D - -o /dev/null "$API/feed/$id.$ext" | sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' | tr -d '\r')
      code=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$API/feed/$id.$ext")
      [ "$code" != 304 ] || revalidated=$((revalidated + 1))
    done
  done
  for path in "api/watches/$id" "api/watches/$id/items" "watches/$id"; do
    curl -s -o /dev/null "$API/$path"
  done
done
for path in api/watches opml metrics ""; do
  curl -s -o /dev/null "$API/$path"
done
echo "pgo-build: $revalidated feed requests answered 304 after a 200" >&2
[ "$revalidated" -gt 0 ] || { echo "pgo-build: the training read no feed" >&2; exit 1; }
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || true
SERVER_PID=
kill "$SITE_PID"
SITE_PID=
"$PROFDATA" merge -o "$OUT/sitefeed.profdata" "$DATA"
unset LLVM_PROFILE_FILE

echo "pgo-build: 3/3 the build with the profile" >&2
LLVM_PROFILE_FILE=$JUNK RUSTFLAGS="-Cprofile-use=$(realpath "$OUT/sitefeed.profdata")" \
  cargo build --release --locked --bin sitefeed --target-dir "$OUT"
echo "pgo-build: $OUT/release/sitefeed" >&2
