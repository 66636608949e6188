#!/usr/bin/env bash
# Makes the Python peers that ImageKernel's benchmarks measure against, one venv each, and prints
# one line per peer: NAME<TAB>PYTHON. The benchmarks find them in the same folder
# (`Benchmarks/Sources/BenchSupport/Peers.swift`, `Examples/bench/run.sh`).
#
#   bash Benchmarks/peers/setup.sh [--only NAME[,NAME...]]
#
# Folder: $IMAGEKERNEL_PEERS, else ~/.cache/imagekernel-peers. A venv whose install finished has a
# `.ok` file and is kept; delete the folder (or one venv in it) to rebuild.
#
#   pillow       stock Pillow from PyPI (context only: not the bar)
#   pillow-simd  Pillow-SIMD compiled here with -mavx2 where the CPU has AVX2 (SSE4 otherwise): the
#                fastest Pillow, and the one the resize and thumbnail figures are quoted against
#   vips         pyvips with pyvips-binary (libvips 8.18 with Highway SIMD; Debian's 8.14 is slower
#                and is context only)
#   thumbor      thumbor 7.8, the Python image service `Examples/bench` runs beside image-proxy
#   pillow-jxl   Pillow with pillow-jxl-plugin 1.3 (its wheel bundles libjxl 0.12): the JPEG XL
#                peer (the libvips wheel has no JXL loader)
#   boto3        boto3 1.x, the AWS SDK for Python: bench-s3's peer for GETs from a bucket
#
# Needs python3 with venv and pip; Pillow-SIMD's build needs a C compiler and the JPEG, PNG and
# zlib headers, installed here when missing (apt-get, as root or with sudo).
set -euo pipefail
root="${IMAGEKERNEL_PEERS:-$HOME/.cache/imagekernel-peers}"
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="${2:?--only takes a list}"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$root"

wanted() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

apt_install() {
  local missing=() p sudo=""
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup.sh: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# make_venv NAME PIP-ARGUMENTS...: a venv under $root/NAME with the packages installed. `.ok`
# holds the arguments of the install that finished; other arguments install again into the venv.
make_venv() {
  local name=$1; shift
  local venv="$root/$name"
  if [ ! -f "$venv/.ok" ] || [ "$(cat "$venv/.ok")" != "$*" ]; then
    echo "setup.sh: installing into $venv: $*" >&2
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip >&2 || true
    "$venv/bin/pip" install -q "$@" >&2
    printf '%s' "$*" > "$venv/.ok"
  fi
  printf '%s\t%s\n' "$name" "$venv/bin/python"
}

# requests: bench-e2e's Python client fetches with it.
if wanted pillow; then make_venv pillow pillow requests; fi
if wanted pillow-simd; then
  apt_install gcc libjpeg62-turbo-dev libpng-dev zlib1g-dev
  flags="-msse4"
  grep -qw avx2 /proc/cpuinfo && flags="-mavx2"
  # Pillow-SIMD ships source only: its SIMD paths are chosen at compile time from CC's flags.
  CC="cc $flags" make_venv pillow-simd --no-cache-dir --no-binary pillow-simd pillow-simd requests
fi
if wanted vips; then make_venv vips "pyvips" "pyvips-binary>=8.18,<8.19"; fi
if wanted thumbor; then make_venv thumbor "thumbor>=7.8,<7.9"; fi
if wanted pillow-jxl; then make_venv pillow-jxl pillow "pillow-jxl-plugin>=1.3,<1.4"; fi
if wanted boto3; then make_venv boto3 "boto3>=1.34,<2"; fi
