-- Headless Neovim as a real LSP client of autograd-lint (works on nvim 0.7 to 0.11):
--   AGL_SERVER_CMD='["autograd-lint", "lsp"]' AGL_FILE=train.py \
--     nvim --headless --clean -n -c 'luafile tests/nvim/check.lua'
-- Prints one `DIAG <line> <col> <severity> <code> <message>` line per diagnostic (0-based
-- line, byte column as Neovim stores it), then `HOVER <markdown>` for the first AG001,
-- then `DONE`; exits non-zero when something never arrives.
local cmd = vim.fn.json_decode(os.getenv("AGL_SERVER_CMD"))
local file = os.getenv("AGL_FILE")
local timeout = tonumber(os.getenv("AGL_TIMEOUT_MS") or "30000")

local function out(line)
  io.stdout:write(line .. "\n")
end

local function finish(ok, message)
  if message then
    out(message)
  end
  vim.cmd(ok and "qall!" or "cquit! 1")
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
vim.bo.filetype = "python"
local client_id = vim.lsp.start_client({
  name = "autograd-lint",
  cmd = cmd,
  root_dir = vim.fn.fnamemodify(file, ":p:h"),
})
if not client_id then
  return finish(false, "FAIL start_client returned nil")
end
vim.lsp.buf_attach_client(0, client_id)

local function ag001()
  for _, diagnostic in ipairs(vim.diagnostic.get(0)) do
    if diagnostic.code == "AG001" then
      return diagnostic
    end
  end
end

if not vim.wait(timeout, function() return ag001() ~= nil end, 50) then
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

vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
finish(true, "DONE")
