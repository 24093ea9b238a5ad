#!/usr/bin/env bash
# Installs the Debian packages ChartCast needs, only those missing.
# Usage: scripts/install-deps.sh run|test|bench|cluster
set -euo pipefail

run_packages=(libwebsockets-dev libwebsockets-evlib-ev libev-dev zlib1g-dev libsqlite3-dev libssl-dev libhiredis-dev pkg-config)
test_packages=("${run_packages[@]}" chromium chromium-driver python3-selenium libwebsockets-test-server openssl curl redis-server)
bench_packages=("${test_packages[@]}" util-linux)
cluster_packages=("${run_packages[@]}" redis-server)

case "${1:-run}" in
  run) wanted=("${run_packages[@]}") ;;
  test) wanted=("${test_packages[@]}") ;;
  bench) wanted=("${bench_packages[@]}") ;;
  cluster) wanted=("${cluster_packages[@]}") ;;
  *) echo "usage: $0 run|test|bench|cluster" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ! command -v swift >/dev/null 2>&1; then
  echo "install-deps: the Swift toolchain (swift) is not on PATH; install Swift 6 first (https://www.swift.org/install/linux/)." >&2
  exit 1
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present (${wanted[*]})"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
