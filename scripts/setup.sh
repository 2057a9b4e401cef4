#!/usr/bin/env bash
# Installs what Vinci needs from Debian (scripts/apt-packages.txt) and builds
# it into build/ (binaries in build/bin/). Idempotent and non-interactive:
# apt runs only when a package is missing; the build is incremental.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mapfile -t packages < <(grep -v '^\s*#' "$root/scripts/apt-packages.txt" | grep -v '^\s*$')

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} Debian package(s): ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc)
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j "$jobs"
