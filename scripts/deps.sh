#!/usr/bin/env bash
# Installs the Debian packages ImageKernel needs, only those that are missing.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail
packages=(libcurl4-openssl-dev libssl-dev libpng-dev libjpeg62-turbo-dev libheif-dev libwebp-dev libgif-dev libtiff-dev libjxl-dev libjxl-tools librsvg2-dev webp libhiredis-dev liblcms2-dev libgs-common libtcmalloc-minimal4 redis-server pkg-config nginx openssl curl chromium fonts-dejavu-core ceph-mon ceph-osd radosgw ceph-common bc time "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
