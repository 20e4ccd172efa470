#!/usr/bin/env bash
# Prepare, on the development machine (Debian 12, network), what tools/gpu_check.sh needs on a
# bare GPU machine that can fetch nothing: one ignored folder, .gpu/, small enough to travel with
# the working tree (the device tool sends at most 64 MiB in all). It holds
#   prefix.tar.xz  the Debian packages the build needs, with every library they pull in, less what
#                  any glibc system has (Priority: required, the C/C++ toolchain, Perl, Python),
#                  unpacked and packed again without their documentation (the packages themselves
#                  no longer fit beside the tree); gpu_check.sh unpacks it into a prefix of its own,
#                  never into /. The packages are kept in .cache/gpu-debs/
#   wheels/        glad2 (generates the OpenGL loader; its Jinja2 is on the GPU machine)
#   shapes.tar.xz  the configuration and tokenizer, without weights, of all-MiniLM-L6-v2 (87 MiB of
#                  weights), SmolLM2-135M and Gemma 3 270M (their GGUF files, 93 and 253 MB; Gemma
#                  3's shape with SmolLM2's vocabulary: tools/make_random_decoder.py): gpu_check.sh
#                  gives each random weights of the same shape there
# and prints its size. Idempotent: a second run fetches only what is missing.
#   tools/gpu_prepare.sh [--window] [--minilm] [--no-shapes]
# (--no-shapes: not shapes.tar.xz, for a check that only configures, as tools/test.sh's)
# Two things more are too large to travel beside the tree in one call; each option packs one of
# them (one xz-packed tar) into parts that each do, in .gpu-NAME/ with SHA256SUMS, to be carried
# one part per call to the same warm machine (the stage NAME of gpu_check.sh gathers them there;
# README.md, "On a GPU", gives the calls):
#   --window   what the typing benchmark's window needs on a machine with no X server: Xvfb, its
#              keyboard compiler and Mesa's software GLX, which needs LLVM (48 MiB packed)
#   --minilm   all-MiniLM-L6-v2 (models/, from tools/setup.sh), for its golden tests (78 MiB)
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
not_carried_base=$not_carried
not_carried="$not_carried|$mesa_only"
extras=("$@")

debs=$root/.cache/gpu-debs
mkdir -p "$debs" "$dest/wheels"
rm -rf "$dest/debs" "$dest/minilm-shape"  # the layout before prefix.tar.xz and shapes.tar.xz
# A machine whose package lists were never fetched (or were cleared) knows no package yet.
if ! compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
fi
required=$(dpkg-query -W -f='${Package} ${Priority}\n' 2>/dev/null | awk '$2 == "required" {print $1}' | sort -u)
# closure EXCLUDED PACKAGE...: the packages and everything they pull in, less what matches EXCLUDED
# and what any system has.
closure_of() {
  local excluded=$1
  shift
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
    --no-enhances "$@" | grep -v '^[ <]' | sort -u | grep -Ev "$excluded" | grep -vxF -f <(printf '%s\n' "$required")
}
mapfile -t closure < <(closure_of "$not_carried" "${packages[@]}")
say "${#closure[@]} Debian packages (${packages[*]} and what they pull in)"
# Packages of an earlier closure (another version, or --window before) go.
for deb in "$debs"/*.deb; do
  [ -e "$deb" ] || continue
  name=$(basename "$deb")
  printf '%s\n' "${closure[@]}" | grep -qxF "${name%%_*}" || rm -f "$deb"
done
missing=()
for p in "${closure[@]}"; do compgen -G "$debs/${p}_*.deb" >/dev/null || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "downloading ${#missing[@]} of them"
  (cd "$debs" && apt-get download -qq "${missing[@]}" >/dev/null)
fi
# unpacked_without_docs ROOT DEB...: the packages' files under ROOT, less what no build reads.
unpacked_without_docs() {
  local into=$1
  shift
  rm -rf "$into"
  for deb in "$@"; do dpkg-deb -x "$deb" "$into"; done
  rm -rf "$into"/usr/share/{doc,man,info,lintian,bug,locale,gtk-doc,bash-completion}
}
# Packed again only when the set of packages changed.
(cd "$debs" && ls ./*.deb) >"$root/.cache/gpu-debs.list"
if ! cmp -s "$root/.cache/gpu-debs.list" "$dest/prefix.list" || [ ! -f "$dest/prefix.tar.xz" ]; then
  say "packing them without their documentation (xz, half a minute)"
  unpacked_without_docs "$root/.cache/gpu-prefix" "$debs"/*.deb
  tar -C "$root/.cache/gpu-prefix" -cf - . | xz -6 -T0 >"$dest/prefix.tar.xz"
  rm -rf "$root/.cache/gpu-prefix"
  cp "$root/.cache/gpu-debs.list" "$dest/prefix.list"
fi
if ! compgen -G "$dest/wheels/glad2-*.whl" >/dev/null; then
  py=$root/.venv/bin/python
  [ -x "$py" ] || py=python3
  "$py" -m pip download -q --disable-pip-version-check --no-deps -d "$dest/wheels" glad2==2.0.8
fi
minilm=$root/models/all-MiniLM-L6-v2
pack_shapes() {
  local shapes=$root/.cache/gpu-shapes py=$root/.venv/bin/python models=$root/models
  local smollm2=$models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf
  local gemma3=$models/gemma-3-270m/gemma-3-270m-q4_k_m.gguf
  # Packed again only when missing, or when the decoders were missing then and are here now.
  if [ -f "$dest/shapes.tar.xz" ]; then
    [ -f "$smollm2" ] || return 0
    tar -tJf "$dest/shapes.tar.xz" | grep -q smollm2-shape && return 0
  fi
  rm -rf "$shapes" && mkdir -p "$shapes/minilm-shape"
  if [ -d "$minilm" ]; then
    for f in config.json vocab.txt tokenizer.json tokenizer_config.json special_tokens_map.json; do
      cp "$minilm/$f" "$shapes/minilm-shape/"
    done
  else
    say "models/all-MiniLM-L6-v2 is missing (tools/setup.sh fetches it): the MiniLM-shaped checks will be skipped"
  fi
  if [ -f "$smollm2" ] && [ -f "$gemma3" ] && [ -x "$py" ]; then
    "$py" "$root/tools/make_random_decoder.py" shape "$smollm2" "$shapes/smollm2-shape" 2>/dev/null
    "$py" "$root/tools/make_random_decoder.py" shape "$gemma3" "$shapes/gemma3-shape" --vocab-from "$shapes/smollm2-shape" 2>/dev/null
  else
    say "the GGUF decoders or .venv are missing (tools/setup.sh): the decoder-shaped checks will be skipped"
  fi
  tar -C "$shapes" -cf - . | xz -9 >"$dest/shapes.tar.xz"
  rm -rf "$shapes"
}
[[ " ${extras[*]} " == *" --no-shapes "* ]] || pack_shapes
tree=$(cd "$root" && git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1)
carried=$(du -sb "$dest" | cut -f1)
say "$dest: $((carried / 1048576)) MiB; with the tracked tree ($((tree / 1048576)) MiB): $(((carried + tree) / 1048576)) MiB of the 64 MiB a device call sends"
say "then, on the GPU machine: tools/gpu_check.sh OUT_DIR   (device tool: carry [\".gpu\"])"

# pack_in_parts NAME ROOT PATH...: PATHs (under ROOT) as one xz-packed tar, cut into parts that
# each travel beside the tree (half a MiB spare), in .gpu-NAME/ with their SHA256SUMS.
pack_in_parts() {
  local name=$1 from=$2 dest=$root/.gpu-$1 packed=$root/.cache/gpu-$1.tar.xz
  shift 2
  say "packing $name (xz, a minute or two)"
  tar -C "$from" -cf - "$@" | xz -9 -T0 >"$packed"
  local part=$((64 * 1048576 - tree - 524288))
  rm -rf "$dest" && mkdir -p "$dest"
  (cd "$dest" && split -b "$part" -d "$packed" "$name.tar.xz.part" && sha256sum "$name".tar.xz.part* >SHA256SUMS)
  rm -f "$packed"
  local parts
  parts=$(ls "$dest/$name".tar.xz.part* | wc -l)
  say "$dest: $parts parts of at most $((part / 1048576)) MiB; on the GPU machine, one call per part, in turn:"
  say "  ATTNSCOPE_GPU_STAGES=$name tools/gpu_check.sh OUT_DIR   (carry [\".gpu-$name/SHA256SUMS\", \".gpu-$name/$name.tar.xz.partNN\"])"
}

# The window's packages, less what .gpu/debs holds, unpacked without their documentation.
pack_window() {
  local cache=$root/.cache/gpu-window
  mkdir -p "$cache/debs"
  local skip
  skip="$not_carried_base|^($(printf '%s|' "${closure[@]}" | sed 's/[+.]/\\&/g; s/|$//'))\$"
  mapfile -t wclosure < <(closure_of "$skip" "${window_packages[@]}")
  say "the window: ${#wclosure[@]} Debian packages more (${window_packages[*]} and what they pull in)"
  (cd "$cache/debs" && rm -f ./*.deb && apt-get download -qq "${wclosure[@]}" >/dev/null)
  rm -rf "$cache/root"
  for deb in "$cache"/debs/*.deb; do dpkg-deb -x "$deb" "$cache/root"; done
  rm -rf "$cache"/root/usr/share/{doc,man,lintian,locale,bug}
  pack_in_parts window "$cache/root" .
  rm -rf "$cache/root"
}

pack_minilm() {
  [ -f "$minilm/model.safetensors" ] || { say "no $minilm (tools/setup.sh fetches it): --minilm skipped"; return; }
  pack_in_parts minilm "$root/models" --exclude=README.md --exclude=data_config.json all-MiniLM-L6-v2
}

for extra in "${extras[@]}"; do
  case $extra in
    --window) pack_window ;;
    --minilm) pack_minilm ;;
    --no-shapes) ;;
    *) say "unknown option $extra (--window, --minilm, --no-shapes)"; exit 2 ;;
  esac
done
