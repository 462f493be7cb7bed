#!/bin/sh
# Feed throughput against the static ceiling: `sitefeed serve` (release build) with one
# watch of a local page of 100 entries, then wrk on /healthz, on the feed (200, from the
# feed cache), on the feed as a reader asks for it (Accept-Encoding: gzip, a 200 of the
# cached gzip form) and on the feed with a matching If-None-Match (304), RUNS times each.
# Everything on 127.0.0.1; processes stopped by PID; scratch in $DIR.
#
#   cargo build --release && sh bench/feed_load.sh
set -eu
BIN=${BIN:-target/release/sitefeed}
DIR=${DIR:-/tmp/sitefeed-feedload}
PORT=${PORT:-18181}
SITE_PORT=${SITE_PORT:-18182}
RUNS=${RUNS:-3}
SECS=${SECS:-10}
CONN=${CONN:-64}
rm -rf "$DIR" && mkdir -p "$DIR/site"
{
  echo '<!DOCTYPE html><html><head><title>Bench news</title></head><body><main><ul>'
  i=0
  while [ $i -lt 100 ]; do
    echo "<li><h2><a href=\"/item/$i\">Story number $i about the council budget and the river</a></h2><p>A summary of story $i, long enough to be one.</p></li>"
    i=$((i + 1))
  done
  echo '</ul></main></body></html>'
} > "$DIR/site/index.html"
python3 -m http.server "$SITE_PORT" --bind 127.0.0.1 --directory "$DIR/site" >/dev/null 2>&1 &
SITE_PID=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$SITE_PORT/" >/dev/null && break; sleep 0.2; done
cat > "$DIR/sitefeed.toml" <<TOML
[server]
listen = "127.0.0.1:$PORT"
base_url = "http://127.0.0.1:$PORT"
[storage]
path = "$DIR/data"
[fetch]
allow_private_addresses = true
per_host_delay_ms = 0
TOML
RUST_LOG=warn "$BIN" --config "$DIR/sitefeed.toml" serve >"$DIR/serve.log" 2>&1 &
SF_PID=$!
trap 'kill $SF_PID $SITE_PID 2>/dev/null' EXIT
B="http://127.0.0.1:$PORT"
for _ in $(seq 50); do curl -sf "$B/healthz" >/dev/null && break; sleep 0.2; done
ID=$(curl -sf -X POST -H 'content-type: application/json' \
  -d "{\"url\":\"http://127.0.0.1:$SITE_PORT/\",\"backfill\":50}" "$B/api/watches" |
  python3 -c 'import sys,json; print(json.load(sys.stdin)["id"])')
curl -sf -X POST "$B/api/watches/$ID/check" >/dev/null
FEED="$B/feed/$ID.xml"
ETAG=$(curl -sfI "$FEED" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
echo "feed: $(curl -sf "$FEED" | wc -c) bytes, $(curl -sf "$FEED" | grep -c '<item>') items, ETag $ETAG"
echo "feed in gzip: $(curl -sf -H 'Accept-Encoding: gzip' "$FEED" | wc -c) bytes"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $ETAG" "$FEED")" = 304 ]
rate() { wrk -t2 -c"$CONN" -d"${SECS}s" "$@" | sed -n 's/^Requests\/sec: *//p'; }
for what in healthz feed200 feed200gz feed304; do
  printf '%s:' "$what"
  for _ in $(seq "$RUNS"); do
    case $what in
      healthz) r=$(rate "$B/healthz") ;;
      feed200) r=$(rate "$FEED") ;;
      feed200gz) r=$(rate -H "Accept-Encoding: gzip" "$FEED") ;;
      feed304) r=$(rate -H "If-None-Match: $ETAG" "$FEED") ;;
    esac
    printf ' %s' "$r"
  done
  echo
done
