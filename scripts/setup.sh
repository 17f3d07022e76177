#!/usr/bin/env bash
# One-step set-up for a fresh Debian 12 machine: installs the missing Debian
# packages, builds, then either runs gpu-advise or runs every test.
#
#   scripts/setup.sh run [gpu-advise arguments...]   release build, then run it
#   scripts/setup.sh test                            dev build (warnings as errors), all tests
#   scripts/setup.sh packages                        only install what `test` needs (.ci/run)
#
# Works as root or as a user with sudo; never prompts.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  run | test | packages) shift ;;
  *)
    echo "usage: scripts/setup.sh run [gpu-advise arguments...] | scripts/setup.sh test | scripts/setup.sh packages" >&2
    exit 2
    ;;
esac

packages=(cmake ninja-build g++ libcli11-dev nlohmann-json3-dev libfmt-dev libyaml-cpp-dev catch2)
if [ "$mode" != run ]; then
  # The golden tests validate JSON with python3-jsonschema and render the HTML
  # report in headless Chromium (with CJK fonts for the Chinese report).
  packages+=(python3 python3-jsonschema chromium fonts-noto-cjk)
  # The sanitizer and fuzz build uses clang and libFuzzer, the test builds link
  # with lld; CI checks the formatting with clang-format-14 and the code with
  # clang-tidy-14.
  packages+=(clang-14 libfuzzer-14-dev lld clang-format-14 clang-tidy-14)
  # CI builds the benchmarks so they keep compiling (docs/performance.md),
  # measures the functions with universal-ctags (scripts/check-size.sh) and
  # tests the .deb on a clean Debian 12 root made by debootstrap.
  packages+=(libbenchmark-dev universal-ctags debootstrap)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
if ((${#missing[@]} > 0)); then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo -n); fi
  echo "setup: installing ${missing[*]}" >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [ "$mode" = packages ]; then
  exit 0
fi
if [ "$mode" = test ]; then
  cmake --preset dev
  cmake --build --preset dev
  ctest --preset dev
  exit 0
fi

# Build quietly; show the log only when the build fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Say so when there is a build to wait for: no binary yet, or a source newer than it.
if [ ! -x build/release/gpu-advise ] ||
  [ -n "$(find src include data cmake CMakeLists.txt CMakePresets.json -newer build/release/gpu-advise -print -quit 2>/dev/null)" ]; then
  echo "setup: building gpu-advise (release, about a minute the first time)..." >&2
fi
if ! { cmake --preset release && cmake --build --preset release; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 2
fi
exec build/release/gpu-advise "$@"
