#!/usr/bin/env bash
# The 32-bit MicroPython for tools/bench_firmware.py's heap figures: the MicroPython
# WebAssembly port from the npm registry, run by Node (apt's nodejs). Installs into
# tools/.wasm (git-ignored). Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="1.27.0"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y nodejs npm >/dev/null
    else
        echo "ensure_wasm: node and npm are needed (apt-get install nodejs npm)" >&2
        exit 1
    fi
fi
pkg="$here/.wasm/node_modules/@micropython/micropython-webassembly-pyscript/package.json"
if [ -f "$pkg" ] && grep -q "\"version\": \"$version\"" "$pkg"; then
    exit 0
fi
mkdir -p "$here/.wasm"
npm install --prefix "$here/.wasm" --no-audit --no-fund --silent "@micropython/micropython-webassembly-pyscript@$version"
