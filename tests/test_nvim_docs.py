"""Every Neovim configuration in README.md and docs/editors.md, as written, as Neovim's
init.lua: opening a buggy training script gets the AG001 diagnostic from `autograd-lint lsp`
on PATH, with the severity the snippet's settings ask for.

CI has Debian's Neovim 0.7.2. The 0.7 block runs on it with nothing else loaded. The others
use APIs that 0.7 lacks (`vim.lsp.config`/`vim.lsp.enable`: 0.11; `vim.lsp.start`, `vim.fs`:
0.8; nvim-lspconfig's `lspconfig.configs`/`lspconfig.util`): STAND_INS defines each one *only
where the running Neovim has none* (a newer Neovim, or an installed nvim-lspconfig, runs the
real one), with the documented behaviour the snippet relies on: a `vim.lsp.Config` field
that Neovim 0.11 does not document is an error, `enable` starts the config's `cmd` on its
`filetypes` in the directory its `root_markers` find. The report prints the configuration
the snippet registered, which the test checks too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NVIM = shutil.which("nvim")
PAGES = (ROOT / "README.md", ROOT / "docs" / "editors.md")
OLDEST = "<!-- nvim-0.7-config -->"

# Fields of `vim.lsp.Config` (Neovim 0.11, `:help vim.lsp.Config`: its own fields and those of
# `vim.lsp.ClientConfig` it extends).
CONFIG_FIELDS = [
    "cmd",
    "filetypes",
    "root_markers",
    "root_dir",
    "reuse_client",
    "workspace_required",
    "name",
    "settings",
    "init_options",
    "capabilities",
    "handlers",
    "commands",
    "on_attach",
    "on_init",
    "on_exit",
    "on_error",
    "before_init",
    "cmd_cwd",
    "cmd_env",
    "detached",
    "workspace_folders",
    "get_language_id",
    "offset_encoding",
    "trace",
    "flags",
]

STAND_INS = r"""
local function say(line) io.stdout:write(line .. "\n") end
local config_fields = {}
for _, field in ipairs(vim.fn.json_decode(os.getenv("AGL_CONFIG_FIELDS"))) do
  config_fields[field] = true
end

-- The directory at or above `path` that holds one of `markers`, or nil.
local function find_upward(markers, path)
  local dir = vim.fn.fnamemodify(path, ":p")
  if vim.fn.isdirectory(dir) == 0 then dir = vim.fn.fnamemodify(dir, ":h") end
  dir = dir:gsub("/$", "")
  while true do
    for _, marker in ipairs(markers) do
      if vim.loop.fs_stat(dir .. "/" .. marker) then return dir end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then return nil end
    dir = parent
  end
end

if not vim.fs then  -- 0.8: find (upward) and dirname
  say("STAND-IN vim.fs")
  vim.fs = {
    dirname = function(path) return path and vim.fn.fnamemodify(path, ":h") end,
    find = function(names, opts)
      assert(opts.upward, "the stand-in only searches upward")
      local dir = find_upward(names, assert(opts.path, "no path"))
      if not dir then return {} end
      for _, name in ipairs(names) do
        if vim.loop.fs_stat(dir .. "/" .. name) then return { dir .. "/" .. name } end
      end
    end,
  }
end

if not vim.lsp.start then  -- 0.8: start a client, or reuse one of that name and root
  say("STAND-IN vim.lsp.start")
  local started = {}
  vim.lsp.start = function(config)
    -- 0.8 and later advertise workspace/configuration (neovim/neovim#19548), so the server
    -- asks for the `settings`; 0.7 does not.
    local capabilities = config.capabilities or vim.lsp.protocol.make_client_capabilities()
    config.capabilities =
      vim.tbl_deep_extend("force", capabilities, { workspace = { configuration = true } })
    local key = config.name .. "\0" .. config.root_dir
    started[key] = started[key] or vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(0, started[key])
    return started[key]
  end
end

local function start_on_filetypes(name, config, root_of)
  vim.api.nvim_create_autocmd("FileType", {
    pattern = config.filetypes,
    callback = function(args)
      local root = root_of(vim.api.nvim_buf_get_name(args.buf), args.buf)
      vim.lsp.start({
        name = name, cmd = config.cmd, root_dir = root or vim.fn.getcwd(),
        settings = config.settings, init_options = config.init_options,
      })
    end,
  })
end

if not vim.lsp.config then  -- 0.11
  say("STAND-IN vim.lsp.config")
  _G.recorded_lsp_configs = {}
  vim.lsp.config = function(name, config)
    for field in pairs(config) do
      assert(config_fields[field], "vim.lsp.Config has no field " .. field)
    end
    local old = _G.recorded_lsp_configs[name] or {}
    _G.recorded_lsp_configs[name] = vim.tbl_deep_extend("force", old, config)
  end
  vim.lsp.enable = function(name)
    local config = assert(_G.recorded_lsp_configs[name], "no vim.lsp.config named " .. name)
    start_on_filetypes(name, config, function(file)
      return find_upward(config.root_markers or {}, file)
    end)
  end
end

if not pcall(require, "lspconfig.util") then  -- nvim-lspconfig's legacy framework
  say("STAND-IN lspconfig")
  _G.recorded_lsp_configs = _G.recorded_lsp_configs or {}
  package.preload["lspconfig.util"] = function()
    return {
      root_pattern = function(...)
        local markers = { ... }
        return function(file) return find_upward(markers, file) end
      end,
    }
  end
  package.preload["lspconfig.configs"] = function()
    return setmetatable({}, {
      __newindex = function(configs, name, definition)
        assert(type(definition.default_config) == "table", "no default_config")
        local entry = {}
        function entry.setup(user)
          local config = vim.tbl_deep_extend("keep", user or {}, definition.default_config)
          _G.recorded_lsp_configs[name] = config
          start_on_filetypes(name, config, config.root_dir)
        end
        rawset(configs, name, entry)
      end,
    })
  end
  package.preload["lspconfig"] = function()
    local configs = require("lspconfig.configs")
    return setmetatable({}, { __index = function(_, name) return configs[name] end })
  end
end
"""

# Waits for the first autograd-lint diagnostic, prints them, the clients and what the
# snippet registered, quits.
REPORT = r"""
local function say(line) io.stdout:write(line .. "\n") end
local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
for _, d in ipairs(vim.diagnostic.get(0)) do
  say(("DIAG %d %s %s %d"):format(d.lnum, tostring(d.code), d.source or "", d.severity))
end
for _, client in pairs(vim.lsp.buf_get_clients(0)) do
  say(("CLIENT %s %s"):format(client.name, client.config.root_dir))
end
say("FILETYPE " .. vim.bo.filetype)
for name, config in pairs(_G.recorded_lsp_configs or {}) do
  local plain = {}
  for key, value in pairs(config) do
    if type(value) ~= "function" then plain[key] = value end
  end
  say("CONFIG " .. name .. " " .. vim.fn.json_encode(plain))
end
vim.cmd(ok and "qall!" or "cquit! 1")
"""

pytestmark = pytest.mark.skipif(NVIM is None, reason="needs Neovim (apt-get install neovim)")


def snippets() -> list[tuple[str, int, bool, str]]:
    """(page, line, whether it is the block for Neovim 0.7 as it is, the Lua)."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"```lua\n(.*?)```", text, re.DOTALL):
            before = text[: match.start()]
            oldest = before.rstrip().endswith(OLDEST)
            found.append((page.name, before.count("\n") + 1, oldest, match.group(1)))
    return found


SNIPPETS = snippets()


def test_the_pages_have_every_neovim_config():
    # The 0.7 block, the 0.8-0.10 one, nvim-lspconfig's, and 0.11's in both pages.
    assert [oldest for _, _, oldest, _ in SNIPPETS].count(True) == 1, f"lost {OLDEST}"
    assert len(SNIPPETS) >= 5
    assert sum("vim.lsp.config(" in lua for *_, lua in SNIPPETS) >= 2
    assert any('require("lspconfig' in lua for *_, lua in SNIPPETS)


def run_neovim(tmp_path: Path, init_lua: str, stand_ins: bool) -> list[str]:
    home = tmp_path / "home"
    config = home / "config" / "nvim"
    config.mkdir(parents=True)
    (config / "init.lua").write_text(init_lua, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.autograd-lint]\n", encoding="utf-8")
    shutil.copy(ROOT / "samples" / "ag001_rnn_hidden_buggy.py", project / "train.py")
    report = tmp_path / "report.lua"
    report.write_text(REPORT, encoding="utf-8")
    prelude = tmp_path / "stand_ins.lua"
    prelude.write_text(STAND_INS, encoding="utf-8")
    env = dict(os.environ, AGL_CONFIG_FIELDS=json.dumps(CONFIG_FIELDS))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[name] = str(home / name.lower().removeprefix("xdg_").removesuffix("_home"))
    # `autograd-lint` on PATH, as the configs expect.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    # `--cmd` runs before the user's init.lua (XDG_CONFIG_HOME/nvim/init.lua), which a plain
    # `nvim train.py` then loads, with filetype detection on.
    before = ["--cmd", f"luafile {prelude}"] if stand_ins else []
    run = subprocess.run(
        [NVIM, "--headless", "-n", *before, "train.py", "-c", f"luafile {report}"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=project,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout.splitlines()


@pytest.mark.parametrize(
    ("page", "line", "oldest", "lua"), SNIPPETS, ids=[f"{p}:{n}" for p, n, _, _ in SNIPPETS]
)
def test_the_documented_config_starts_the_server_on_a_python_file(
    page, line, oldest, lua, tmp_path
):
    lines = run_neovim(tmp_path, lua, stand_ins=not oldest)
    project = str(tmp_path / "project")
    assert "FILETYPE python" in lines
    clients = [entry for entry in lines if entry.startswith("CLIENT ")]
    assert len(clients) == 1 and clients[0].endswith(f" {project}"), lines  # the marker's dir
    # vim.diagnostic severities: 1 error, 2 warning. Line 41, 0-based.
    severity = 2 if re.search(r'AG001\s*=\s*"warning"', lua) else 1
    assert f"DIAG 40 AG001 autograd-lint {severity}" in lines, lines
    for entry in lines:
        if entry.startswith("CONFIG "):
            _, _, recorded = entry.split(" ", 2)
            config = json.loads(recorded)
            # The command is ours, on PATH; the server is for Python files in the project.
            assert config["cmd"] == ["autograd-lint", "lsp"]
            assert config["filetypes"] == ["python"]
            assert "pyproject.toml" in config.get("root_markers", ["pyproject.toml"])


def neovim_version() -> tuple[int, int]:
    first = subprocess.run([NVIM, "--version"], capture_output=True, text=True).stdout
    major, minor = re.match(r"NVIM v(\d+)\.(\d+)", first).groups()
    return int(major), int(minor)


@pytest.mark.parametrize("field", ["init_options", "settings"])
def test_on_neovim_07_settings_reach_the_server_only_as_init_options(field, tmp_path):
    # Why the 0.7 block passes `init_options`: 0.7 does not offer workspace/configuration, so
    # the server never asks it for `settings` (0.8 and later do). The block with AG001 made
    # a warning each way.
    reaches = field == "init_options" or neovim_version() >= (0, 8)
    severity = 2 if reaches else 1
    (lua,) = [lua for _, _, oldest, lua in SNIPPETS if oldest]
    asked = '{ severity = { AG001 = "warning" } }'
    given = lua.replace(
        'init_options = { ["autograd-lint"] = {} }', f'{field} = {{ ["autograd-lint"] = {asked} }}'
    )
    assert asked in given
    lines = run_neovim(tmp_path, given, stand_ins=False)
    assert f"DIAG 40 AG001 autograd-lint {severity}" in lines, lines
