#!/usr/bin/env bash
# Figures for `imagekernel queue` (issue 45), measured in one run on this machine:
#   1. one queue worker vs `imagekernel prefetch` on the same list (the baseline), same origin and
#      concurrency (goal >= 0.9x);
#   2. three workers vs one on an origin that answers after 50 ms, at a fixed per-worker
#      concurrency (goal >= 2.7x);
#   3. a worker's peak RSS with 10^4 vs 10^5 URLs (goal <= 1.2x).
# Usage: scripts/bench-queue.sh [release|debug]   (default release; builds imagekernel first)
# N1 (default 2000) sets the list of figures 1-2; RSS_SMALL/RSS_LARGE (10000/100000) those of 3.
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-release}
swift build -c "$config" --product imagekernel >/dev/null
bin=$(swift build -c "$config" --show-bin-path)/imagekernel
N1=${N1:-2000}
RSS_SMALL=${RSS_SMALL:-10000}
RSS_LARGE=${RSS_LARGE:-100000}
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
image=Tests/Corpora/jpeg/libjpeg-turbo/testorig.jpg

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_origin() { # delay_ms -> sets $port
  port=$(free_port)
  DELAY_MS=$1 python3 scripts/bench-queue-origin.py "$port" "$image" >/dev/null 2>&1 & pids+=($!)
  for _ in $(seq 50); do (echo > /dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.1; done
}
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no --dir "$work" --logfile "$work/redis.log" >/dev/null 2>&1 & pids+=($!)
sleep 0.5
redis="redis://127.0.0.1:$redis_port"
list() { # port count tag -> file
  local file="$work/list-$3.txt"
  seq 1 "$2" | sed "s|^|http://127.0.0.1:$1/img/$3/|" > "$file"
  echo "$file"
}
now() { date +%s.%N; }

echo "== 1. one worker vs prefetch (baseline), $N1 URLs, concurrency 6"
start_origin 0
file=$(list "$port" "$N1" p)
t0=$(now); "$bin" prefetch --from "$file" --cache-dir "$work/cache-p" --shared-cache "$redis" --concurrency 6 >/dev/null; t1=$(now)
prefetch_s=$(echo "$t1 - $t0" | bc -l)
file=$(list "$port" "$N1" q)
"$bin" queue push one --redis "$redis" --from "$file" >/dev/null
t0=$(now); "$bin" queue work one --redis "$redis" --cache-dir "$work/cache-q" --concurrency 6 --until-empty >/dev/null; t1=$(now)
queue_s=$(echo "$t1 - $t0" | bc -l)
printf 'prefetch\t%.2f s\nqueue worker\t%.2f s\nratio (prefetch time / worker time)\t%.2fx\n' "$prefetch_s" "$queue_s" "$(echo "$prefetch_s / $queue_s" | bc -l)"

echo "== 2. three workers vs one, origin 50 ms, concurrency 4 per worker (--per-host 12 for the fleet), $N1 URLs"
start_origin 50
file=$(list "$port" "$N1" one)
"$bin" queue push solo --redis "$redis" --from "$file" >/dev/null
t0=$(now); "$bin" queue work solo --redis "$redis" --cache-dir "$work/cache-s" --concurrency 4 --per-host 12 --until-empty >/dev/null; t1=$(now)
one_s=$(echo "$t1 - $t0" | bc -l)
file=$(list "$port" "$N1" three)
"$bin" queue push trio --redis "$redis" --from "$file" >/dev/null
t0=$(now)
trio=()
for i in 1 2 3; do "$bin" queue work trio --redis "$redis" --cache-dir "$work/cache-t$i" --concurrency 4 --per-host 12 --until-empty --consumer "t$i" >/dev/null & trio+=($!); done
wait "${trio[@]}"
t1=$(now)
three_s=$(echo "$t1 - $t0" | bc -l)
printf 'one worker\t%.2f s\nthree workers\t%.2f s\nspeed-up (one / three)\t%.2fx\n' "$one_s" "$three_s" "$(echo "$one_s / $three_s" | bc -l)"

echo "== 3. worker peak RSS, $RSS_SMALL vs $RSS_LARGE URLs"
start_origin 0
rss() { # count tag -> KiB
  local file; file=$(list "$port" "$1" "$2")
  "$bin" queue push "rss$2" --redis "$redis" --from "$file" >/dev/null
  /usr/bin/time -f '%M' -o "$work/rss-$2" "$bin" queue work "rss$2" --redis "$redis" --cache-dir "$work/cache-$2" --concurrency 6 --until-empty >/dev/null
  cat "$work/rss-$2"
}
small=$(rss "$RSS_SMALL" small)
large=$(rss "$RSS_LARGE" large)
printf 'peak RSS %s URLs\t%s KiB\npeak RSS %s URLs\t%s KiB\nratio\t%.2fx\n' "$RSS_SMALL" "$small" "$RSS_LARGE" "$large" "$(echo "$large / $small" | bc -l)"
