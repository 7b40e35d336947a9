#!/usr/bin/env bash
# Rebuilds the Wasm page tokenizer from its C source: clang's wasm32 target, no libc, stripped (no paths or
# names inside), so the same clang gives the same bytes. Usage: scripts/build-wasm.sh [output.wasm]
# (default: next to the source, the file committed and embedded in the executable).
set -euo pipefail
cd "$(dirname "$0")/.."
src=src/crawler/wasm/page-tokenizer.c
out=${1:-src/crawler/wasm/page-tokenizer.wasm}
clang --target=wasm32 -O2 -nostdlib -ffreestanding -mbulk-memory -fno-ident -Wall -Wextra -Werror \
  -Wl,--no-entry -Wl,--strip-all -Wl,--initial-memory=1048576 \
  -o "$out" "$src"
