-- Headless Neovim as a real LSP client of autograd-lint (works on nvim 0.7 to 0.11):
--   AGL_SERVER_CMD='["autograd-lint", "lsp"]' AGL_FILE=train.py \
--     nvim --headless --clean -n -c 'luafile tests/nvim/check.lua'
-- Prints one `DIAG <line> <col> <severity> <code> <message>` line per diagnostic (0-based
-- line, byte column as Neovim stores it), then `HOVER <markdown>` for the first AG001,
-- then `DONE`; exits non-zero when something never arrives.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
local c = dofile(here .. "client.lua")
local out, finish, timeout = c.out, c.finish, c.timeout

local client_id = c.start()
if not client_id then
  return finish(false, "FAIL start_client returned nil")
end
local ag001 = c.ag001

if not c.wait_for(function() return ag001() ~= nil end) then
  for _, d in ipairs(vim.diagnostic.get(0)) do
    out(("DIAG %d %d %d %s %s"):format(d.lnum, d.col, d.severity, tostring(d.code), d.message))
  end
  return finish(false, "FAIL no AG001 diagnostic")
end
for _, d in ipairs(vim.diagnostic.get(0)) do
  local first_line = vim.split(d.message, "\n")[1]
  out(("DIAG %d %d %d %s %s"):format(d.lnum, d.col, d.severity, tostring(d.code), first_line))
end

-- Hover where the squiggle starts: Neovim converts the cursor to the negotiated encoding.
local diagnostic = ag001()
vim.api.nvim_win_set_cursor(0, { diagnostic.lnum + 1, diagnostic.col })
local params = vim.lsp.util.make_position_params()
local responses = vim.lsp.buf_request_sync(0, "textDocument/hover", params, timeout)
local response = responses and responses[client_id]
local contents = response and response.result and response.result.contents
if not contents then
  return finish(false, "FAIL no hover")
end
out("HOVER " .. (contents.value or vim.inspect(contents)))

c.stop(client_id)
finish(true, "DONE")
