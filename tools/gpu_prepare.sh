#!/usr/bin/env bash
# Prepare, on the development machine (Debian 12, network), what tools/gpu_check.sh needs on a
# bare GPU machine that can fetch nothing: one ignored folder, .gpu/, small enough to travel with
# the working tree (the device tool sends at most 64 MiB in all). It holds
#   debs/          the Debian packages the build and the window need, with every library they pull
#                  in, less what any glibc system has (Priority: required, the C/C++ toolchain,
#                  Perl, Python); gpu_check.sh unpacks them into a prefix of its own, never into /
#   wheels/        glad2 (generates the OpenGL loader; its Jinja2 is on the GPU machine)
#   minilm-shape/  all-MiniLM-L6-v2's configuration and tokenizer without its weights (87 MiB, too
#                  large to travel): gpu_check.sh gives it random weights of the same shape there
# and prints its size. Idempotent: a second run fetches only what is missing.
#   tools/gpu_prepare.sh [--window]
# --window adds Xvfb and Mesa's software GLX for the typing benchmark: 55 MiB more (LLVM alone is
# 23), which no longer fits beside the tree; without it gpu_check.sh uses the machine's own Xvfb
# if it has one, and otherwise says the typing benchmark was skipped.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=$root/.gpu
say() { printf '[gpu_prepare] %s\n' "$*"; }

build_packages=(
  nlohmann-json3-dev libutf8proc-dev libpcre2-dev libgtest-dev libgmock-dev libcli11-dev libcairo2-dev libstb-dev
  libfontconfig-dev fonts-dejavu-core libimgui-dev libglfw3-dev libgl-dev libcurl4-openssl-dev libssl-dev pkgconf
)
# The window under Xvfb: the server, its GLX (Mesa's software DRI driver, which needs LLVM) and
# the GL dispatch (glvnd) that hands a client's GLX to NVIDIA's driver.
window_packages=(xvfb xauth x11-xkb-utils xkb-data libgl1-mesa-dri libglx-mesa0 libgl1 libglx0 libglvnd0 libopengl0 libegl1)
# Everything a glibc system has, and what only alternatives or tools drag in.
not_carried='^(libc6|libc6-dev|libc-dev-bin|libgcc-s1|libstdc\+\+6|gcc-12-base|linux-libc-dev|libcrypt1|libcrypt-dev|'\
'perl|perl-base|perl-modules-.*|libperl.*|python3.*|libpython3.*|debconf|cdebconf|dpkg|install-info|tar|'\
'sysvinit-utils|lsb-base|readline-common|libreadline8|libncursesw6|libtinfo6|libdebian-installer4|libnewt0.52|'\
'libslang2|libtextwrap1|fonts-(croscore|freefont-.*|liberation.*|texgyre|urw-base35)|ttf-bitstream-vera|'\
'libglib2.0-bin|libglib2.0-dev-bin|libglib2.0-data|libcairo-script-interpreter2|mailcap|media-types|mime-support|libgdbm.*|libdb5.3|libsqlite3-0)$'

# What only a window's software rendering needs (Mesa's drivers, LLVM and theirs): the build links
# glvnd's libGL alone.
mesa_only='^(libllvm.*|libz3-.*|libicu.*|libxml2|libgl1-mesa-dri|libglx-mesa0|libegl-mesa0|libgbm1|libdrm.*|'\
'libwayland-.*|libglfw3-wayland|libsensors.*|libelf1|libpciaccess0|libxcb-(dri2|dri3|present|sync|randr|xfixes|glx)0|'\
'libxshmfence1|libxxf86vm1|libglapi-mesa|libx11-xcb1)$'

packages=("${build_packages[@]}")
if [ "${1:-}" = --window ]; then
  packages+=("${window_packages[@]}")
else
  not_carried="$not_carried|$mesa_only"
fi

mkdir -p "$dest/debs" "$dest/wheels"
# A machine whose package lists were never fetched (or were cleared) knows no package yet.
if ! compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
fi
required=$(dpkg-query -W -f='${Package} ${Priority}\n' 2>/dev/null | awk '$2 == "required" {print $1}' | sort -u)
mapfile -t closure < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances "${packages[@]}" | grep -v '^[ <]' | sort -u | grep -Ev "$not_carried" \
  | grep -vxF -f <(printf '%s\n' "$required"))
say "${#closure[@]} Debian packages (${packages[*]} and what they pull in)"
# Packages of an earlier closure (another version, or --window before) go.
for deb in "$dest"/debs/*.deb; do
  [ -e "$deb" ] || continue
  name=$(basename "$deb")
  printf '%s\n' "${closure[@]}" | grep -qxF "${name%%_*}" || rm -f "$deb"
done
missing=()
for p in "${closure[@]}"; do compgen -G "$dest/debs/${p}_*.deb" >/dev/null || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "downloading ${#missing[@]} of them"
  (cd "$dest/debs" && apt-get download -qq "${missing[@]}" >/dev/null)
fi
if ! compgen -G "$dest/wheels/glad2-*.whl" >/dev/null; then
  py=$root/.venv/bin/python
  [ -x "$py" ] || py=python3
  "$py" -m pip download -q --disable-pip-version-check --no-deps -d "$dest/wheels" glad2==2.0.8
fi
minilm=$root/models/all-MiniLM-L6-v2
if [ -d "$minilm" ]; then
  mkdir -p "$dest/minilm-shape"
  for f in config.json vocab.txt tokenizer.json tokenizer_config.json special_tokens_map.json; do
    cp "$minilm/$f" "$dest/minilm-shape/"
  done
else
  say "models/all-MiniLM-L6-v2 is missing (tools/setup.sh fetches it): the MiniLM-shaped checks will be skipped"
fi
tree=$(cd "$root" && git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1)
carried=$(du -sb "$dest" | cut -f1)
say "$dest: $((carried / 1048576)) MiB; with the tracked tree ($((tree / 1048576)) MiB): $(((carried + tree) / 1048576)) MiB of the 64 MiB a device call sends"
say "then, on the GPU machine: tools/gpu_check.sh OUT_DIR   (device tool: carry [\".gpu\"])"
