# Shared by compat.sh and tagged.sh (sourced, after `set -euo pipefail`): a work directory removed
# on exit with every process in `pids` stopped, free loopback ports, waiting for a server, a
# process's CPU time and medians. `bench_name` names the script in messages.

work=$(mktemp -d)
chmod 755 "$work"  # nginx workers (nobody) read the sources
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 200); do curl -s -o /dev/null "$1" && return 0; sleep 0.05; done; echo "$bench_name: $1 did not answer" >&2; exit 1; }
ticks=$(getconf CLK_TCK)
cpu_seconds() { # PID → utime + stime in seconds
  awk -v t="$ticks" '{ sub(/^.*\) /, ""); print ($12 + $13) / t }' "/proc/$1/stat"
}
median() { python3 -c "import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))" $1; }
