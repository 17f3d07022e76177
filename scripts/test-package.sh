#!/usr/bin/env bash
# Builds the release .deb, installs it with dpkg, runs the main command from
# PATH, checks the man page and the bash completion, then removes it.
# Needs root (CI runs as root). Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --workflow --preset release >/dev/null
(cd build/release && cpack -G DEB >/dev/null)
deb=$(ls build/release/gpu-advise_*_*.deb | head -1)
echo "package: $deb"
dpkg-deb --info "$deb" | grep -E 'Package|Version|Depends'
dpkg -i "$deb" >/dev/null
trap 'dpkg -r gpu-advise >/dev/null 2>&1 || true' EXIT
command -v gpu-advise
(cd / && gpu-advise --params 70B --task lora --budget low >/tmp/gpu-advise-package.out) && head -3 /tmp/gpu-advise-package.out
test -f /usr/share/man/man1/gpu-advise.1.gz
test -f /usr/share/bash-completion/completions/gpu-advise
test -f /usr/share/doc/gpu-advise/methodology.md
man -l /usr/share/man/man1/gpu-advise.1.gz >/dev/null 2>&1 || zcat /usr/share/man/man1/gpu-advise.1.gz | head -1 >/dev/null
bash -c 'source /usr/share/bash-completion/completions/gpu-advise && complete -p gpu-advise' >/dev/null
echo "package: installed, ran, removed"
