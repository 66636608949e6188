#!/usr/bin/env bash
# image-proxy in imgproxy's compatibility mode (--compat imgproxy, `rs:fill:300:200`) against its
# native grammar (`resize:fill:300:200`): the same work, the same binary, the same run, A/B
# interleaved round by round (the order flips each round), so a busy machine weighs on both.
#   cold: every source once (COLD_N distinct URLs of a 400x300 JPEG on nginx), PARALLEL at once,
#         a fresh service with empty caches: wall seconds, and the service's own CPU time per
#         image (utime + stime from /proc, which a busy machine hardly moves: the measure to trust
#         on a shared host).
#   hot:  one cached URL, wrk at CONNS connections for HOT_SECS: requests per second, and the
#         service's CPU time per request.
# Prints one TSV line per measurement (the CPU column added at the end), then the medians and the
# ratios compat/native.
#   ImageProxy/bench/compat.sh [--rounds N] [--cold-n N] [--parallel N] [--hot-secs S] [--conns N] [--proxy-bin PATH]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
proxy_bin="$root/ImageProxy/.build/release/image-proxy"
rounds=3 cold_n=200 parallel=8 hot_secs=5 conns=8
while (($#)); do
  case "$1" in
    --rounds) rounds="$2"; shift ;;
    --cold-n) cold_n="$2"; shift ;;
    --parallel) parallel="$2"; shift ;;
    --hot-secs) hot_secs="$2"; shift ;;
    --conns) conns="$2"; shift ;;
    --proxy-bin) proxy_bin="$2"; shift ;;
    *) echo "compat.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
for tool in nginx wrk curl python3; do command -v $tool >/dev/null || { echo "compat.sh: $tool is missing" >&2; exit 1; }; done
[[ -x $proxy_bin ]] || { echo "compat.sh: no image-proxy at $proxy_bin (swift build -c release --package-path ImageProxy)" >&2; exit 1; }

bench_name=compat.sh
source "$here/lib.sh"

# The origin: nginx serves the 400x300 source as /hot.jpg and as every /cNNN.jpg (distinct URLs,
# so each cold request loads, decodes and renders a source of its own).
mkdir -p "$work/origin/www" "$work/origin/logs"
origin_port=$(free_port)
origin="http://127.0.0.1:$origin_port"
cp "$root/Tests/Corpora/exif-orientation/recurser/Landscape_0.jpg" "$work/origin/www/big.jpg"
cat >"$work/origin/nginx.conf" <<CONF
daemon off; worker_processes 1; pid $work/origin/nginx.pid; error_log $work/origin/logs/error.log;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$origin_port; root $work/origin/www;
  location ~ ^/c[0-9]+\.jpg\$ { try_files /hot.jpg =404; } } }
CONF
nginx -p "$work/origin" -c "$work/origin/nginx.conf" &
pids+=($!)
wait_http "$origin/big.jpg"

# A fresh service: MODE native or compat; sets $svc_pid and $svc.
start_proxy() {
  local port; port=$(free_port)
  local extra=(); [[ $1 == compat ]] && extra=(--compat imgproxy)
  mkdir -p "$work/$1-$port"
  "$proxy_bin" --port "$port" --allow-origin "$origin/" --cache-dir "$work/$1-$port/cache" --log-level warning "${extra[@]}" >/dev/null 2>&1 &
  svc_pid=$!
  pids+=("$svc_pid")
  svc="http://127.0.0.1:$port"
  wait_http "$svc/health"
}
stop_proxy() { kill "$svc_pid" 2>/dev/null || true; wait "$svc_pid" 2>/dev/null || true; }
path() { # MODE SOURCE
  if [[ $1 == compat ]]; then echo "/unsafe/rs:fill:300:200/plain/$origin/$2"; else echo "/unsafe/resize:fill:300:200/plain/$origin/$2"; fi
}

# The source: the 1800x1200 photo cut to 400x300 by the service itself.
start_proxy native
curl -sf -o "$work/origin/www/hot.jpg" "$svc/unsafe/resize:fill:400:300/plain/$origin/big.jpg@jpeg" ||
  { echo "compat.sh: the source was not made: $(curl -s "$svc/unsafe/resize:fill:400:300/plain/$origin/big.jpg@jpeg" | head -c 300)" >&2; exit 1; }
stop_proxy

cold() { # MODE → wall seconds
  start_proxy "$1"
  local cfg="$work/cold-$1.cfg"
  : >"$cfg"
  for i in $(seq -f '%04g' 1 "$cold_n"); do printf 'url = "%s%s"\noutput = "/dev/null"\n' "$svc" "$(path "$1" "c$round$i.jpg")" >>"$cfg"; done
  local start end codes cpu0 cpu1
  cpu0=$(cpu_seconds "$svc_pid")
  start=$(date +%s.%N)
  codes=$(curl -s --no-progress-meter --parallel --parallel-max "$parallel" -K "$cfg" -w '%{http_code}\n')
  end=$(date +%s.%N)
  cpu1=$(cpu_seconds "$svc_pid")
  stop_proxy
  [[ $(grep -c '^200$' <<<"$codes") == "$cold_n" ]] || { echo "compat.sh: $1 cold: not every answer was 200" >&2; exit 1; }
  python3 -c "print(f'{$end - $start:.3f} {($cpu1 - $cpu0) * 1000 / $cold_n:.3f}')"
}

hot() { # MODE → requests per second
  start_proxy "$1"
  local url="$svc$(path "$1" hot.jpg)"
  curl -sf -o /dev/null "$url"
  local out cpu0 cpu1
  cpu0=$(cpu_seconds "$svc_pid")
  out=$(wrk -t 2 -c "$conns" -d "${hot_secs}s" "$url")
  cpu1=$(cpu_seconds "$svc_pid")
  stop_proxy
  local rps requests
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  python3 -c "print(f'{$rps} {($cpu1 - $cpu0) * 1e6 / max(1, $requests):.2f}')"
}

echo -e "round\tmode\tpath\tvalue\tunit\tcpu_per_request"
declare -A values
for round in $(seq 1 "$rounds"); do
  order="native compat"; ((round % 2 == 0)) && order="compat native"
  for mode in $order; do
    read -r c ccpu < <(cold "$mode"); values[$mode-cold]+="$c "; values[$mode-coldcpu]+="$ccpu "
    echo -e "$round\t$mode\tcold\t$c\ts ($cold_n sources, $parallel parallel)\t$ccpu ms"
    read -r h hcpu < <(hot "$mode"); values[$mode-hot]+="$h "; values[$mode-hotcpu]+="$hcpu "
    echo -e "$round\t$mode\thot\t$h\treq/s ($conns connections, ${hot_secs}s)\t$hcpu µs"
  done
done
for p in cold hot coldcpu hotcpu; do
  n=$(median "${values[native-$p]}") c=$(median "${values[compat-$p]}")
  python3 -c "
n, c = $n, $c
ratio = c / n
what = {'cold': 'time', 'hot': 'throughput', 'coldcpu': 'CPU per image', 'hotcpu': 'CPU per request'}['$p']
print(f'# $p median: native {n:g}, compat {c:g}: compat/native {what} ratio {ratio:.3f}')"
done
