#!/usr/bin/env bash
# Builds the release .deb and tests it twice:
#  1. on this machine: dpkg -i, the main command from PATH, the man page and
#     the bash completion, then dpkg -r;
#  2. on a clean Debian 12: a minimal bookworm root made by debootstrap, where
#     apt installs the .deb and resolves its dependencies from the Debian
#     archive, as on a user's machine, and the main command runs from / inside it.
# The root is made once and kept outside the checkout, so a clean checkout on a
# machine that keeps it does not make it again (GPU_ADVISE_DEBIAN_ROOT, default
# /var/cache/gpu-advise/debian12-root); each run works on a fresh copy.
#
#   scripts/test-package.sh              build the package and test it (uses the release tree)
#   scripts/test-package.sh --root-only  only make the clean root when it is missing
#                                        (.ci/run starts this early, in the background)
#
# Needs root (CI runs as root) and the Debian archive (GPU_ADVISE_DEBIAN_MIRROR,
# default http://deb.debian.org/debian). Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
pristine=${GPU_ADVISE_DEBIAN_ROOT:-/var/cache/gpu-advise/debian12-root}

# The clean root, made when missing: into a scratch folder first, so a run cut
# short never leaves half a root where a whole one is expected.
make_root() {
  if [ -x "$pristine/usr/bin/apt-get" ]; then
    echo "package: the clean Debian 12 root is cached in $pristine"
    return
  fi
  if ! command -v debootstrap >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  fi
  mkdir -p "$(dirname "$pristine")"
  local scratch="$pristine.partial"
  rm -rf "$scratch"
  debootstrap --variant=minbase bookworm "$scratch" "${GPU_ADVISE_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >/dev/null
  rm -rf "$pristine"
  mv "$scratch" "$pristine"
  echo "package: made a clean Debian 12 root in $pristine"
}
if [ "${1:-}" = --root-only ]; then
  make_root
  exit 0
fi

cmake --workflow --preset release >/dev/null
(cd build/release && cpack -G DEB >/dev/null)
deb=$(ls build/release/gpu-advise_*_*.deb | head -1)
echo "package: $deb"
dpkg-deb --info "$deb" | grep -E 'Package|Version|Depends|Recommends' || true
# The package's dependencies are honest: a static binary needs no shared
# library and the package declares none; a dynamic one declares what it needs.
needed=$(readelf -d build/release/gpu-advise | grep -c NEEDED || true)
depends=$(dpkg-deb -f "$deb" Depends || true)
if [ "$needed" -eq 0 ] && [ -n "$depends" ]; then
  echo "package: the binary is static but the package depends on: $depends" >&2; exit 1
elif [ "$needed" -gt 0 ] && [ -z "$depends" ]; then
  echo "package: the binary needs $needed shared libraries but the package declares no dependencies" >&2; exit 1
fi
echo "package: the binary needs $needed shared libraries; Depends: ${depends:-(none)}"
# The completion loads with bash-completion, so the package recommends it.
recommends=$(dpkg-deb -f "$deb" Recommends || true)
if [ "$recommends" != bash-completion ]; then
  echo "package: Recommends is '${recommends}', not bash-completion" >&2; exit 1
fi
echo "package: Recommends: $recommends"

root=build/debian12-test
cleanup() {
  dpkg -r gpu-advise >/dev/null 2>&1 || true
  if mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc"; fi
  rm -rf "$root"
}
trap cleanup EXIT

# 1. This machine.
dpkg -i "$deb" >/dev/null
command -v gpu-advise
(cd / && gpu-advise --params 70B --task lora --budget low >/tmp/gpu-advise-package.out) && head -3 /tmp/gpu-advise-package.out
test -f /usr/share/man/man1/gpu-advise.1.gz
test -f /usr/share/bash-completion/completions/gpu-advise
test -f /usr/share/doc/gpu-advise/methodology.md
man -l /usr/share/man/man1/gpu-advise.1.gz >/dev/null 2>&1 || zcat /usr/share/man/man1/gpu-advise.1.gz | head -1 >/dev/null
bash -c 'source /usr/share/bash-completion/completions/gpu-advise && complete -p gpu-advise' >/dev/null
dpkg -r gpu-advise >/dev/null
echo "package: installed, ran and removed on this machine"

# 2. A clean Debian 12.
make_root
rm -rf "$root"
cp -a "$pristine" "$root"
cp "$deb" "$root/tmp/gpu-advise.deb"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
in_root() { chroot "$root" env DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"; }
in_root dpkg-query -W gpu-advise >/dev/null 2>&1 && { echo "package: the clean root already has gpu-advise" >&2; exit 1; }
log=build/debian12-apt.log
in_root apt-get update -qq >"$log" 2>&1 || { cat "$log"; exit 1; }
in_root apt-get install -y -qq --no-install-recommends /tmp/gpu-advise.deb >"$log" 2>&1 || { cat "$log"; exit 1; }
echo "package: apt installed it${depends:+ with $depends}"
in_root sh -c 'cd / && gpu-advise --params 70B --task lora --budget low' >/tmp/gpu-advise-clean.out
head -3 /tmp/gpu-advise-clean.out
in_root test -f /usr/share/man/man1/gpu-advise.1.gz
echo "package: installed with apt and ran on a clean Debian 12 ($(cat "$root/etc/debian_version"))"
