#!/usr/bin/env bash
# image-proxy against two anchors, thumbor 7.8 and nginx serving the result as a static file.
# Not run in CI. See README.md beside this script.
#
#   ImageProxy/bench/run.sh [--quick] [--services nginx,thumbor,proxy] [--no-build]
#                         [--proxy-bin PATH] [--keep] [--profile perf|perf-cold|callgrind]
#                         [--wait-idle SECONDS] [--sources photo|noise|both]
#
#   --quick     2 s per wrk run and 40 cold sources instead of 10 s and 500 (a smoke test)
#   --services  which services to measure (default: all three)
#   --paths     hot, cold or hot,cold (the default)
#   --no-build  do not run `swift build` for image-proxy (use the binary as it is)
#   --proxy-bin the image-proxy binary (default ImageProxy/.build/release/image-proxy)
#   --proxy-bin-b a second image-proxy binary, service "proxyb" (add it to --services): an A/B in
#               one run, each cold line measured for proxy then proxyb, with the floor around each;
#               each hot round measures proxyb right after proxy
#   --keep      keep the temporary directory (configs, logs, sources, responses)
#   --profile   instead of the benchmark, profile image-proxy: perf (`perf record -e cpu-clock -g`
#               during wrk at 64 connections on the hot URL, or --profile-conns N), perf-cold (the same during the cold
#               run at 8 parallel, or --profile-parallel N) or callgrind (image-proxy under callgrind, wrk at 8 connections);
#               prints the top symbols
#   --cold-rounds N  measure the cold path N times, thumbor and image-proxy in turn, each with
#               fresh instances; the ratios use the medians (default 1)
#   --hot-rounds N   measure each hot line N times (the three services in turn, fresh instances
#               each time); the ratios use the medians and the p99 at 64 connections gives its
#               range too (default 1: a p99 from one 10 s run on a shared 2-core VM moves a lot)
#   --wait-idle before each run, wait up to SECONDS for the rest of the machine to be idle
#               (other processes below 0.1 core over 2 s); on a shared machine
#   --sources   the cold path's sources: photo (windows of two photos, the default), noise (400x300
#               JPEGs of noise, q85) or both; also the set --profile perf-cold renders (the first)
#   --floor-rounds N  passes over the sources per run of the codec floor (floor/floor.c, run just
#               before and after every image-proxy cold run; default 2)
#
# Environment: THUMBOR_PYTHON (default: the thumbor venv that Benchmarks/peers/setup.sh makes, made
# here when missing), TESTDATA (default: the repository's Tests/Corpora),
# PROXY_ARGS (more image-proxy options, split on spaces), PARALLEL_LIST (the cold path's parallel
# levels, default "1 8 64"), CONNS_LIST (the hot path's connection counts, default "1 8 64"), TMPDIR (where the sources, caches and
# result storages go; TMPDIR=/dev/shm keeps the file system out of the cold figures), FLOOR_CC
# (the codec floor's C compiler; default clang, else cc).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

quick=0 build=1 keep=0 profile="" idle_wait=0 cold_rounds=1 hot_rounds=1 profile_parallel=8 source_sets=photo floor_rounds=2 profile_conns=64
services="nginx,thumbor,proxy"
paths="hot,cold"
proxy_bin="$root/ImageProxy/.build/release/image-proxy"
proxy_bin_b=""
while (($#)); do
  case "$1" in
    --quick) quick=1 ;;
    --services) services="$2"; shift ;;
    --paths) paths="$2"; shift ;;
    --no-build) build=0 ;;
    --proxy-bin) proxy_bin="$2"; shift ;;
    --proxy-bin-b) proxy_bin_b="$2"; shift ;;
    --keep) keep=1 ;;
    --profile) profile="$2"; shift ;;
    --wait-idle) idle_wait="$2"; shift ;;
    --cold-rounds) cold_rounds="$2"; shift ;;
    --hot-rounds) hot_rounds="$2"; shift ;;
    --profile-parallel) profile_parallel="$2"; shift ;;
    --sources) case "$2" in photo|noise) source_sets=$2 ;; both) source_sets="photo noise" ;; *) echo "run.sh: --sources takes photo, noise or both" >&2; exit 2 ;; esac; shift ;;
    --floor-rounds) floor_rounds="$2"; shift ;;
    --profile-conns) profile_conns="$2"; shift ;;
    -h|--help) sed -n "2,$(grep -n '^set -euo' "$0" | cut -d: -f1)p" "$0" | sed '$d'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
has() { [[ ",$services," == *",$1,"* ]]; }

if ((quick)); then hot_secs=2 cold_n=40; else hot_secs=10 cold_n=500; fi
[[ $profile == perf || $profile == callgrind ]] && cold_n=1
conns_list=${CONNS_LIST:-"1 8 64"}
parallel_list=${PARALLEL_LIST:-"1 8 64"}
thumbor_py="${THUMBOR_PYTHON:-}"
testdata="${TESTDATA:-$root/Tests/Corpora}"
[[ -d $testdata/exif-orientation ]] || { echo "run.sh: no corpora at $testdata (set TESTDATA)" >&2; exit 1; }

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ---- tools ----
if ! command -v wrk >/dev/null; then
  [[ $EUID == 0 ]] || die "wrk is missing: sudo apt-get install wrk"
  log "installing wrk"
  apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null
fi
for tool in nginx curl python3 pgrep; do command -v $tool >/dev/null || die "$tool is missing"; done
nginx_bin=$(command -v nginx)
if [[ -z $thumbor_py ]]; then
  # The peers script keeps a finished venv, so this is quick after the first time.
  thumbor_py=$(bash "$root/Benchmarks/peers/setup.sh" --only thumbor | cut -f2) || die "Benchmarks/peers/setup.sh could not make the thumbor venv"
fi
[[ -x $thumbor_py ]] || die "no Python at $thumbor_py: run Benchmarks/peers/setup.sh (its thumbor venv has Pillow and thumbor)"
"$thumbor_py" -c 'import PIL' 2>/dev/null || die "$thumbor_py has no Pillow"
if has thumbor; then "$thumbor_py" -c 'import thumbor' 2>/dev/null || die "$thumbor_py has no thumbor"; fi
helpers() { python3 "$here/helpers.py" "$@"; }

if has proxyb; then
  [[ -x $proxy_bin_b ]] || die "--services proxyb needs --proxy-bin-b PATH"
  has proxy || services="$services,proxy"
fi
if has proxy; then
  if ((build)); then
    log "building image-proxy (release)"
    swift build -c release --package-path "$root/ImageProxy" --product image-proxy >&2 || die "image-proxy does not build"
  fi
  [[ -x $proxy_bin ]] || die "no image-proxy at $proxy_bin"
  # one log line per request costs what nginx (access_log off) and thumbor (-l error) do not pay
  proxy_args=()
  proxy_help=$("$proxy_bin" --help 2>&1 || true)
  [[ $proxy_help == *--log-level* ]] && proxy_args+=(--log-level warning)
  read -r -a extra <<<"${PROXY_ARGS:-}"
  proxy_args+=("${extra[@]}")
fi

# ---- processes: every service runs in a session of its own, so it is stopped as one group ----
work=$(mktemp -d "${TMPDIR:-/tmp}/imagekernel-bench.XXXXXX")
chmod 755 "$work"
sessions=()
cleanup() {
  local rc=$?
  for s in "${sessions[@]}"; do kill -TERM -- "-$s" 2>/dev/null || true; done
  for s in "${sessions[@]}"; do
    for _ in $(seq 50); do pgrep -s "$s" >/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$s" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  if ((keep)); then log "kept $work"; else rm -rf "$work"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME CMD...: runs CMD in a new session, logs to $work/NAME.log, sets $started
start() {
  local name=$1; shift
  setsid "$@" >"$work/$name.log" 2>&1 </dev/null &
  started=$!
  sessions+=("$started")
  # setsid does not fork here (a background job of a script is no group leader): check it
  local sid
  for _ in 1 2 3 4 5; do
    sid=$(awk '{sub(/.*\) /, ""); print $4}' "/proc/$started/stat" 2>/dev/null || true)
    [[ $sid == "$started" ]] && return 0
    sleep 0.05
  done
  die "$name: could not start it in a session of its own (sid ${sid:-?} for pid $started)"
}
stop() {
  local s=$1 keep_s=() x
  kill -TERM -- "-$s" 2>/dev/null || true
  for _ in $(seq 100); do pgrep -s "$s" >/dev/null || break; sleep 0.05; done
  kill -KILL -- "-$s" 2>/dev/null || true
  wait "$s" 2>/dev/null || true
  for x in "${sessions[@]}"; do [[ $x == "$s" ]] || keep_s+=("$x"); done
  sessions=("${keep_s[@]}")
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_http() { # URL SESSION NAME: until the server answers anything
  local i
  for i in $(seq 300); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1" || true) != 000 ]] && return 0
    pgrep -s "$2" >/dev/null || { tail -20 "$work/$3.log" >&2; die "$3 exited"; }
    sleep 0.1
  done
  tail -20 "$work/$3.log" >&2
  die "$3 does not answer at $1"
}

# ---- measurements over a session's processes ----
clk=$(getconf CLK_TCK)
sess_ticks() { # utime + stime of every process in session $1
  local p t=0 v
  for p in $(pgrep -s "$1"); do
    v=$(awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$p/stat" 2>/dev/null || echo 0)
    t=$((t + v))
  done
  echo $t
}
sess_hwm_mb() { # VmHWM summed over the session's processes (forked pages shared with the parent count twice)
  local p kb=0 v
  for p in $(pgrep -s "$1"); do
    v=$(awk '/^VmHWM:/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
    kb=$((kb + ${v:-0}))
  done
  awk -v kb=$kb 'BEGIN {printf "%.1f", kb / 1024}'
}
host_busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; } # user nice system irq softirq steal
now() { date +%s.%N; }
# wait_idle: with --wait-idle, wait until nothing else uses the machine (our servers are idle here)
wait_idle() {
  ((idle_wait > 0)) || return 0
  local deadline=$((SECONDS + idle_wait)) h0 h1 busy said=0
  while :; do
    h0=$(host_busy); sleep 2; h1=$(host_busy)
    busy=$(awk -v a="$h0" -v b="$h1" -v clk="$clk" 'BEGIN {printf "%.2f", (b - a) / clk / 2}')
    awk -v b="$busy" 'BEGIN {exit !(b < 0.10)}' && { ((said)) && log "the machine is idle"; return 0; }
    if ((SECONDS >= deadline)); then log "the machine is still busy ($busy cores), measuring anyway"; return 0; fi
    ((said)) || log "waiting up to ${idle_wait}s for the machine to be idle (others use $busy cores)"
    said=1
    sleep 3
  done
}
# measured SESSION CMD...: runs the load generator CMD, then sets $wall (s) and the cores used
# over the run by the service ($svc_cores), the load generator and the origin ($client_cores),
# the whole machine ($host_cores) and whatever else ran on it ($other_cores: should be ~0)
measured() {
  local sid=$1; shift
  local k0 o0 h0 w0 k1 o1 h1 w1 tf="$work/time.out"
  k0=$(sess_ticks "$sid"); o0=$(sess_ticks "$origin_sid"); h0=$(host_busy); w0=$(now)
  /usr/bin/time -f '%U %S' -o "$tf" "$@" || true
  w1=$(now); k1=$(sess_ticks "$sid"); o1=$(sess_ticks "$origin_sid"); h1=$(host_busy)
  wall=$(awk -v a="$w0" -v b="$w1" 'BEGIN {printf "%.2f", b - a}')
  svc_cores=$(cores "$k0" "$k1" "$w0" "$w1")
  host_cores=$(cores "$h0" "$h1" "$w0" "$w1")
  client_cores=$(awk -v o=$((o1 - o0)) -v clk="$clk" -v a="$w0" -v b="$w1" \
    'END {printf "%.2f", ($(NF - 1) + $NF + o / clk) / (b - a)}' "$tf")
  other_cores=$(awk -v h="$host_cores" -v s="$svc_cores" -v c="$client_cores" 'BEGIN {printf "%.2f", h - s - c}')
}
cores() { awk -v t0="$1" -v t1="$2" -v w0="$3" -v w1="$4" -v clk="$clk" 'BEGIN {printf "%.2f", (t1 - t0) / clk / (w1 - w0)}'; }

# ---- sources, origin ----
log "making sources in $work/data (hot + $cold_n cold of each of: $source_sets)"
"$thumbor_py" "$here/make_sources.py" "$testdata" "$work/data" "$cold_n" "${source_sets// /,}" >&2
prefix_of() { [[ $1 == noise ]] && echo n || echo c; } # the source files' prefix for a set
first_set=${source_sets%% *}

# ---- the codec floor: the cold render's decode, resize and encode in C on one core (floor/) ----
# Built with the C compiler SwiftPM uses (clang from the Swift toolchain), the resize kernels are
# the service's own (Sources/CTransformKernels) compiled as the service has them.
if has proxy; then
  floor_cc=${FLOOR_CC:-$(command -v clang || command -v cc || true)}
  [[ -n $floor_cc ]] || die "no C compiler for the codec floor (clang or cc)"
  kernels="$root/Sources/CTransformKernels"
  "$floor_cc" -O2 -w -o "$work/floor" "$here/floor/floor.c" "$here/floor/floor_resize.c" "$kernels"/*.c -I"$kernels/include" -ljpeg -lm ||
    die "floor/floor.c does not build (libjpeg-turbo's headers: libjpeg-dev)"
fi
static_bytes=$(stat -c %s "$work/data/static/result.jpg")

run_as_user=""
[[ $EUID == 0 ]] && run_as_user="user $(id -un) $(id -gn);"
nginx_conf() { # PREFIX ROOT PORT WORKERS
  mkdir -p "$1/logs"
  cat >"$1/nginx.conf" <<EOF
$run_as_user
daemon off;
master_process on;
worker_processes $4;
pid $1/nginx.pid;
error_log $1/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  open_file_cache max=1000 inactive=60s;
  client_body_temp_path $1/tmp-body;
  proxy_temp_path $1/tmp-proxy;
  fastcgi_temp_path $1/tmp-fastcgi;
  uwsgi_temp_path $1/tmp-uwsgi;
  scgi_temp_path $1/tmp-scgi;
  types { image/jpeg jpg jpeg; }
  server {
    listen 127.0.0.1:$3;
    root $2;
  }
}
EOF
}

origin_port=$(free_port)
nginx_conf "$work/origin" "$work/data/src" "$origin_port" 1
start origin "$nginx_bin" -p "$work/origin" -c "$work/origin/nginx.conf"
origin_sid=$started
origin="http://127.0.0.1:$origin_port"
wait_http "$origin/hot.jpg" "$origin_sid" origin
[[ $(curl -s -o /dev/null -w '%{http_code}' "$origin/$(prefix_of "$first_set")000.jpg") == 200 ]] || die "the origin does not serve the sources"
log "origin: nginx at $origin"

# ---- services: svc_start SERVICE sets $svc_sid and $svc_base, a fresh instance with empty caches ----
svc_gen=0
svc_start() {
  svc_gen=$((svc_gen + 1))
  local port; port=$(free_port)
  local dir="$work/$1-$svc_gen"
  mkdir -p "$dir"
  svc_base="http://127.0.0.1:$port"
  case "$1" in
    nginx)
      nginx_conf "$dir" "$work/data/static" "$port" 2
      start nginx "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" ;;
    thumbor)
      cat >"$dir/thumbor.conf" <<EOF
ALLOW_UNSAFE_URL = True
QUALITY = 80
RESULT_STORAGE = 'thumbor.result_storages.file_storage'
RESULT_STORAGE_FILE_STORAGE_ROOT_PATH = '$dir/result_storage'
RESULT_STORAGE_STORES_UNSAFE = True
STORAGE = 'thumbor.storages.file_storage'
FILE_STORAGE_ROOT_PATH = '$dir/storage'
EOF
      start thumbor "$thumbor_py" -m thumbor.server -i 127.0.0.1 -p "$port" --processes 2 \
        -c "$dir/thumbor.conf" -l error ;;
    proxy|proxyb)
      local bin=$proxy_bin
      [[ $1 == proxyb ]] && bin=$proxy_bin_b
      start "$1" "$bin" --port "$port" --allow-origin "$origin/" --cache-dir "$dir/cache" "${proxy_args[@]}" ;;
  esac
  svc_sid=$started
  wait_http "$svc_base/" "$svc_sid" "$1"
  if [[ $1 == thumbor ]]; then # --processes 2: wait until both workers are forked
    for _ in $(seq 100); do (($(pgrep -s "$svc_sid" | wc -l) >= 3)) && break; sleep 0.1; done
  fi
}

results="$here/results"
mkdir -p "$results/raw"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
((quick)) && stamp="$stamp-quick"
tsv="$results/bench-$stamp.tsv"
{
  echo "# image-proxy benchmark $stamp$( ((quick)) && echo ' (--quick)'), $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "# $(nproc) cores: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); $(uname -sr)"
  echo "# $("$nginx_bin" -v 2>&1); $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2); thumbor $("$thumbor_py" -c 'import thumbor; print(thumbor.__version__)' 2>/dev/null || echo -)"
  echo "# static result.jpg $static_bytes bytes; hot $hot_secs s per wrk run; cold $cold_n sources; caches in $work ($(df --output=fstype "$work" | tail -1))"
  printf 'service\tpath\tconc\tvalue\tp99_ms\tpeak_rss_mb\tsvc_cores\tclient_cores\tother_cores\thost_cores\terrors\tbytes\trequests\tsources\n'
} >"$tsv"

# ---- hot path: one cached URL, wrk ----
hot() { # SERVICE
  local service=$1 c
  for c in $conns_list; do
    svc_start "$service"
    local url; url=$(helpers url "$service" "$svc_base" "$origin/hot.jpg")
    local body="$work/hot-$service-$c.jpg" code
    for _ in 1 2 3; do # warm: the first request makes the result, the next ones are cache hits
      code=$(curl -s -g -o "$body" -w '%{http_code}' --max-time 60 "$url" || true)
    done
    [[ $code == 200 ]] && helpers check "$body" || { log "$service: $url answers $code"; head -c 300 "$body" >&2; die "$service does not serve a 300x200 JPEG"; }
    local bytes; bytes=$(stat -c %s "$body")
    local t=$((c < 2 ? c : 2)) out="$results/raw/$stamp-$service-hot-$c-r${round:-1}.txt"
    wait_idle
    measured "$svc_sid" wrk -t "$t" -c "$c" -d "${hot_secs}s" --timeout 10s --latency "$url" >"$out" 2>&1
    local rss; rss=$(sess_hwm_mb "$svc_sid")
    local rps p99 errs done; read -r rps p99 errs done < <(helpers wrk "$out")
    stop "$svc_sid"
    printf '%s\thot\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\thot\n' "$service" "$c" "$rps" "$p99" "$rss" \
      "$svc_cores" "$client_cores" "$other_cores" "$host_cores" "$errs" "$bytes" "$done" >>"$tsv"
    log "$(tail -1 "$tsv" | tr '\t' ' ')"
  done
}

# floor SET N: one run of the codec floor over the set's sources (CPU seconds of the renders only,
# the files read first), a TSV row like a cold run's (value: wall seconds; service cores: its CPU
# over that wall time; requests: renders). The first run of a set keeps its results in
# $work/floor-SET, which floor_compare holds against the service's.
floor() {
  local set=$1 n=$2 prefix out keep=()
  prefix=$(prefix_of "$set")
  [[ -d $work/floor-$set ]] || { mkdir -p "$work/floor-$set"; keep=(-o "$work/floor-$set"); }
  wait_idle
  out=$("$work/floor" -w 300 -h 200 -q 80 -r "$floor_rounds" "${keep[@]}" "$work/data/src/$prefix"[0-9][0-9][0-9].jpg) || die "the floor failed"
  echo "$set $n $out" >>"$results/raw/$stamp-floor.txt"
  awk -v set="$set" -v n="$n" '{for (i = 1; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]}}
    END {printf "floor\tcold\t%s\t%.4f\t-\t-\t%.4f\t-\t-\t-\t0\t%s\t%d\t%s\n", n, v["wall_s"], v["cpu_s"] / v["wall_s"], v["bytes_mean"], v["images"] * v["rounds"], set}' <<<"$out" >>"$tsv"
  log "floor $set (before/after $n parallel): $out"
}
# floor_compare SET DIR: once per set, the floor's results against the service's in DIR/out
floor_compare() {
  local set=$1 dir=$2 files identical same_size ratio worst
  grep -q "^floorcmp	cold	.*	$set\$" "$tsv" && return 0
  read -r files identical same_size ratio worst < <(helpers floorcmp "$work/floor-$set" "$dir/out")
  local text="$files results: $identical byte-identical, $same_size of the same size in pixels, bytes floor/proxy $ratio (worst file ${worst} % apart); DCT scales $(grep -o 'scales=.*' "$results/raw/$stamp-floor.txt" | head -1)"
  printf 'floorcmp\tcold\t-\t%s\t-\t-\t-\t-\t-\t-\t0\t-\t-\t%s\n' "$text" "$set" >>"$tsv"
  log "floor against image-proxy ($set): $text"
}

# ---- cold path: every cold source of a set once, N in parallel, fresh service and caches ----
cold() { # SERVICE SET [N]: N alone, or every level of PARALLEL_LIST
  local service=$1 set=$2 n
  for n in ${3:-$parallel_list}; do
    [[ $service == proxy* ]] && floor "$set" "$n"
    svc_start "$service"
    local dir="$work/cold-$service-$set-$n-r${round:-1}"
    mkdir -p "$dir/out"
    helpers curlcfg "$service" "$svc_base" "$origin" "$dir/out" "$cold_n" "$(prefix_of "$set")" >"$dir/urls.cfg"
    wait_idle
    measured "$svc_sid" curl -s -g --parallel --parallel-max "$n" --max-time 120 -K "$dir/urls.cfg" \
      -w '%{http_code} %{content_type} %{filename_effective}\n' \
      >"$dir/writeout" 2>"$dir/curl.err"
    local rss; rss=$(sess_hwm_mb "$svc_sid")
    stop "$svc_sid"
    local ok failed; read -r ok failed < <(helpers checkcold "$dir/writeout" "$dir/out" "$cold_n")
    cp "$dir/writeout" "$results/raw/$stamp-$service-cold-$set-$n-r${round:-1}.txt"
    local bytes; bytes=$(du -cb "$dir"/out/*.jpg 2>/dev/null | awk -v n="$ok" 'END {if (n) printf "%.0f", $1 / n; else print 0}')
    printf '%s\tcold\t%s\t%s\t-\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$service" "$n" "$wall" "$rss" \
      "$svc_cores" "$client_cores" "$other_cores" "$host_cores" "$failed" "$bytes" "$cold_n" "$set" >>"$tsv"
    log "$(tail -1 "$tsv" | tr '\t' ' ')"
    if [[ $service == proxy* ]]; then
      floor "$set" "$n"
      floor_compare "$set" "$dir"
    fi
  done
}

# ---- profile: where image-proxy's time goes on the hot path ----
demangle() { if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi; }
profile_proxy() {
  local out="$results/raw/$stamp-profile-$profile"
  case "$profile" in
    perf)
      svc_start proxy
      local url; url=$(helpers url proxy "$svc_base" "$origin/hot.jpg")
      for _ in 1 2 3; do curl -s -g -o /dev/null "$url"; done
      wrk -t "$((profile_conns < 2 ? profile_conns : 2))" -c "$profile_conns" -d "$((hot_secs + 4))s" --latency "$url" >"$out-wrk.txt" 2>&1 &
      local wrk_pid=$!
      sleep 2
      perf record -e cpu-clock -c 500000 -g -p "$svc_sid" -o "$work/perf.data" -- sleep "$hot_secs" 2>"$work/perf.log" >&2
      wait "$wrk_pid" || true
      stop "$svc_sid"
      perf report -i "$work/perf.data" --no-children --stdio --sort symbol --percent-limit 0.7 -g none 2>/dev/null |
        demangle >"$out-self.txt"
      perf report -i "$work/perf.data" --children --stdio --sort symbol --percent-limit 3 -g none 2>/dev/null |
        demangle >"$out-children.txt"
      perf report -i "$work/perf.data" --no-children --stdio --sort dso 2>/dev/null >"$out-dso.txt"
      local rps; rps=$(awk '/Requests\/sec/ {print $2}' "$out-wrk.txt")
      perf script -i "$work/perf.data" 2>/dev/null | demangle |
        python3 "$here/perf_summary.py" hot "$(awk -v r="$rps" -v s="$hot_secs" 'BEGIN {print r * s}')" 500 >"$out-summary.txt" || true
      grep -E 'Requests/sec|99%' "$out-wrk.txt"
      echo "== by shared object"; grep -E '^ +[0-9]' "$out-dso.txt" | awk 'NR <= 15'
      echo "== self time, top symbols"; grep -E '^ +[0-9]' "$out-self.txt" | awk 'NR <= 40'
      echo "== inclusive time (children), top symbols"; grep -E '^ +[0-9]' "$out-children.txt" | awk 'NR <= 40'
      cat "$out-summary.txt" ;;
    perf-cold)
      svc_start proxy
      mkdir -p "$work/cold-profile/out"
      helpers curlcfg proxy "$svc_base" "$origin" "$work/cold-profile/out" "$cold_n" "$(prefix_of "$first_set")" >"$work/cold-profile/urls.cfg"
      perf record -e cpu-clock -c 500000 -g -p "$svc_sid" -o "$work/perf.data" 2>"$work/perf.log" >&2 &
      local perf_pid=$!
      sleep 1
      measured "$svc_sid" curl -s -g --parallel --parallel-max "$profile_parallel" --max-time 120 -K "$work/cold-profile/urls.cfg" \
        -w '%{http_code}\n' >"$work/cold-profile/writeout" 2>"$work/cold-profile/curl.err"
      kill -INT "$perf_pid"; wait "$perf_pid" || true
      stop "$svc_sid"
      echo "cold, $cold_n $first_set sources, $profile_parallel parallel: $wall s, service $svc_cores cores, other $other_cores; answers: $(sort "$work/cold-profile/writeout" | uniq -c | tr '\n' ' ')"
      perf report -i "$work/perf.data" --no-children --stdio --sort symbol --percent-limit 0.5 -g none 2>/dev/null |
        demangle >"$out-self.txt"
      perf report -i "$work/perf.data" --children --stdio --sort symbol --percent-limit 2 -g none 2>/dev/null |
        demangle >"$out-children.txt"
      perf report -i "$work/perf.data" --no-children --stdio --sort dso 2>/dev/null >"$out-dso.txt"
      echo "== by shared object"; grep -E '^ +[0-9]' "$out-dso.txt" | awk 'NR <= 15'
      echo "== self time, top symbols"; grep -E '^ +[0-9]' "$out-self.txt" | awk 'NR <= 45'
      echo "== inclusive time (children), top symbols"; grep -E '^ +[0-9]' "$out-children.txt" | awk 'NR <= 60'
      perf script -i "$work/perf.data" 2>/dev/null | demangle |
        python3 "$here/perf_summary.py" cold "$cold_n" 500 >"$out-summary.txt" || true
      cat "$out-summary.txt" ;;
    callgrind)
      command -v valgrind >/dev/null || die "valgrind is missing"
      local saved=$proxy_bin
      local wrapper="$work/proxy-callgrind.sh"
      printf '#!/bin/sh\nexec valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=%s/callgrind.out.%%p "%s" "$@"\n' "$work" "$saved" >"$wrapper"
      chmod +x "$wrapper"
      proxy_bin=$wrapper
      svc_start proxy
      proxy_bin=$saved
      local url; url=$(helpers url proxy "$svc_base" "$origin/hot.jpg")
      for _ in 1 2 3; do curl -s -g -o /dev/null --max-time 60 "$url"; done
      # zero the counters after start-up and warm-up, measure the hot path only
      callgrind_control -z "$svc_sid" >/dev/null 2>&1 || true
      wrk -t 2 -c 8 -d "$((hot_secs * 2))s" --timeout 10s --latency "$url" >"$out-wrk.txt" 2>&1 || true
      callgrind_control -d "$svc_sid" >/dev/null 2>&1 || true
      sleep 1
      local sid=$svc_sid f
      stop "$svc_sid"
      # part 1 is the dump after wrk (counters zeroed after the warm-up); the plain file is start-up to exit
      f="$work/callgrind.out.$sid.1"
      [[ -s $f ]] || f="$work/callgrind.out.$sid"
      grep -E 'Requests/sec|requests in' "$out-wrk.txt"
      callgrind_annotate --inclusive=no "$f" 2>/dev/null | demangle >"$out-self.txt" || true
      callgrind_annotate --inclusive=yes "$f" 2>/dev/null | demangle >"$out-inclusive.txt" || true
      cp "$f" "$out.callgrind.out"
      awk '/PROGRAM TOTALS/ {gsub(",", "", $1); ir = $1} FILENAME ~ /wrk/ && / requests in / {n = $1}
        END {if (n) printf "%d requests, %.0f instructions (Ir) per request\n", n, ir / n}' "$out-self.txt" "$out-wrk.txt"
      sed -n 1,60p "$out-self.txt"; echo; sed -n 1,60p "$out-inclusive.txt" ;;
    *) die "--profile takes perf, perf-cold or callgrind" ;;
  esac
  log "profile written to $out-*.txt"
}
if [[ -n $profile ]]; then
  has proxy || die "--profile needs image-proxy among --services"
  rm -f "$tsv"
  profile_proxy
  exit 0
fi

on() { [[ ",$paths," == *",$1,"* ]]; }
if on hot; then
  for ((round = 1; round <= hot_rounds; round++)); do
    ((hot_rounds > 1)) && log "hot round $round of $hot_rounds"
    has nginx && hot nginx
    has thumbor && hot thumbor
    has proxy && hot proxy
    has proxyb && hot proxyb
  done
fi
if on cold; then
  for ((round = 1; round <= cold_rounds; round++)); do
    ((cold_rounds > 1)) && log "cold round $round of $cold_rounds"
    for set in $source_sets; do
      if has proxyb; then # an A/B: the two builds line by line, so they share the machine's moment
        for n in $parallel_list; do
          has thumbor && cold thumbor "$set" "$n"
          cold proxy "$set" "$n"
          cold proxyb "$set" "$n"
        done
      else
        has thumbor && cold thumbor "$set"
        has proxy && cold proxy "$set"
      fi
    done
  done
fi

md="${tsv%.tsv}.md"
{
  grep '^#' "$tsv" | sed 's/^# */    /'
  echo
  helpers report "$tsv"
} >"$md"
echo
cat "$md"
log "results: $tsv, $md, raw wrk/curl output in $results/raw"
