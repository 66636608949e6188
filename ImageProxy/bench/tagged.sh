#!/usr/bin/env bash
# The colour cost through the running service (issue 46 part 3): image-proxy's CPU per cold render
# of 400x300 JPEG photo windows tagged Display P3 against the same files untagged, both
# `resize:fill:300:200` to JPEG q80 (converted to sRGB on the tagged ones).
#
#   bash ImageProxy/bench/tagged.sh [--rounds N] [--cold-n N] [--parallel N] [--proxy-bin PATH]
#
# The tagged sources are the untagged files' bytes with a Display P3 profile (tagged/p3icc.c, built
# by lcms as a matrix/shaper profile) in APP2 right after SOI: the compressed image is the same, so
# the decode costs the same and only the colour work differs. Each round runs both sets, each on a
# fresh service (cold caches), the order flipping each round; it prints every measurement, the
# medians and tagged/untagged. Needs nginx, curl, a C compiler with liblcms2-dev, and Pillow (the
# thumbor venv of Benchmarks/peers/setup.sh, or THUMBOR_PYTHON) for the sources.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
proxy_bin="$root/ImageProxy/.build/release/image-proxy"
rounds=6 cold_n=200 parallel=8
while (($#)); do
  case "$1" in
    --rounds) rounds="$2"; shift ;;
    --cold-n) cold_n="$2"; shift ;;
    --parallel) parallel="$2"; shift ;;
    --proxy-bin) proxy_bin="$2"; shift ;;
    *) echo "tagged.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
for tool in nginx curl python3 cc; do command -v $tool >/dev/null || { echo "tagged.sh: $tool is missing" >&2; exit 1; }; done
[[ -x $proxy_bin ]] || { echo "tagged.sh: no image-proxy at $proxy_bin (swift build -c release --package-path ImageProxy)" >&2; exit 1; }
py="${THUMBOR_PYTHON:-$(bash "$root/Benchmarks/peers/setup.sh" --only thumbor | cut -f2)}"

bench_name=tagged.sh
source "$here/lib.sh"

cc -O2 -o "$work/p3icc" "$here/tagged/p3icc.c" -llcms2
"$work/p3icc" "$work/p3.icc"
"$py" "$here/make_sources.py" "$root/Tests/Corpora" "$work/data" "$cold_n" photo >&2
python3 "$here/tagged/tag.py" "$work/p3.icc" "$work/data/src"/c[0-9][0-9][0-9].jpg

mkdir -p "$work/origin/logs"
origin_port=$(free_port)
origin="http://127.0.0.1:$origin_port"
cat >"$work/origin/nginx.conf" <<CONF
daemon off; worker_processes 1; pid $work/origin/nginx.pid; error_log $work/origin/logs/error.log;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$origin_port; root $work/data/src; } }
CONF
nginx -p "$work/origin" -c "$work/origin/nginx.conf" &
pids+=($!)
wait_http "$origin/t000.jpg"

cold() { # PREFIX (c: untagged, t: tagged) → wall seconds, CPU ms per image
  local port; port=$(free_port)
  mkdir -p "$work/svc-$port"
  "$proxy_bin" --port "$port" --allow-origin "$origin/" --cache-dir "$work/svc-$port/cache" --log-level warning >/dev/null 2>&1 &
  local pid=$!
  pids+=("$pid")
  wait_http "http://127.0.0.1:$port/health"
  local cfg="$work/cold-$1.cfg"
  : >"$cfg"
  for i in $(seq -f '%03g' 0 $((cold_n - 1))); do
    printf 'url = "http://127.0.0.1:%s/unsafe/resize:fill:300:200/plain/%s/%s%s.jpg"\noutput = "%s/out-%s%s.jpg"\n' "$port" "$origin" "$1" "$i" "$work" "$1" "$i" >>"$cfg"
  done
  local start end codes cpu0 cpu1
  cpu0=$(cpu_seconds "$pid")
  start=$(date +%s.%N)
  codes=$(curl -s --no-progress-meter --parallel --parallel-max "$parallel" -K "$cfg" -w '%{http_code}\n')
  end=$(date +%s.%N)
  cpu1=$(cpu_seconds "$pid")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$work/svc-$port"
  [[ $(grep -c '^200$' <<<"$codes") == "$cold_n" ]] || { echo "tagged.sh: $1: not every answer was 200" >&2; exit 1; }
  python3 -c "print(f'{$end - $start:.3f} {($cpu1 - $cpu0) * 1000 / $cold_n:.3f}')"
}

echo -e "round\tsources\twall_s\tcpu_ms_per_image"
declare -A values
for round in $(seq 1 "$rounds"); do
  order="c t"; ((round % 2 == 0)) && order="t c"
  for set in $order; do
    read -r wall cpu < <(cold "$set")
    values[$set-wall]+="$wall " values[$set-cpu]+="$cpu "
    echo -e "$round\t$([[ $set == t ]] && echo tagged || echo untagged)\t$wall\t$cpu"
  done
done
# The conversion happened: a tagged answer differs from the untagged one of the same pixels.
cmp -s "$work/out-c000.jpg" "$work/out-t000.jpg" && { echo "tagged.sh: the tagged answer equals the untagged one: nothing was converted" >&2; exit 1; }
for what in wall cpu; do
  u=$(median "${values[c-$what]}") t=$(median "${values[t-$what]}")
  python3 -c "print(f'# $what median: untagged {$u:g}, tagged {$t:g}: tagged/untagged {$t / $u:.3f}')"
done
