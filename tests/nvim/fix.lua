-- Headless Neovim applies autograd-lint's preferred quick fix (nvim 0.7 to 0.11):
--   AGL_SERVER_CMD='["autograd-lint", "lsp"]' AGL_FILE=train.py \
--     nvim --headless --clean -n -c 'luafile tests/nvim/fix.lua'
-- Waits for the AG001 diagnostic, asks for code actions on it, applies the preferred one
-- (resolving it first when the server left its edit out), writes the file, waits for the
-- AG001 diagnostic to go, and prints `TITLE <title>` then `FIXED` (or `FAIL ...`).
local cmd = vim.fn.json_decode(os.getenv("AGL_SERVER_CMD"))
local file = os.getenv("AGL_FILE")
local timeout = tonumber(os.getenv("AGL_TIMEOUT_MS") or "30000")

local function out(line)
  io.stdout:write(line .. "\n")
end

local function finish(ok, message)
  out(message)
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
local client = vim.lsp.get_client_by_id(client_id)

local function ag001()
  for _, diagnostic in ipairs(vim.diagnostic.get(0)) do
    if diagnostic.code == "AG001" then
      return diagnostic
    end
  end
end

if not vim.wait(timeout, function() return ag001() ~= nil end, 50) then
  return finish(false, "FAIL no AG001 diagnostic")
end
local diagnostic = ag001()
-- Rebuild the LSP diagnostic (nvim 0.7 keeps only some of its fields in user_data.lsp).
local lsp_diagnostic = vim.tbl_extend("force", (diagnostic.user_data or {}).lsp or {}, {
  range = {
    start = { line = diagnostic.lnum, character = diagnostic.col },
    ["end"] = { line = diagnostic.end_lnum or diagnostic.lnum, character = diagnostic.end_col or diagnostic.col },
  },
  message = diagnostic.message,
  code = diagnostic.code,
  source = diagnostic.source,
  severity = diagnostic.severity,
})
local params = {
  textDocument = { uri = vim.uri_from_bufnr(0) },
  range = lsp_diagnostic.range,
  context = { diagnostics = { lsp_diagnostic }, only = { "quickfix" } },
}
local responses = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, timeout)
local response = responses and responses[client_id] or {}
if response.err then
  return finish(false, "FAIL codeAction error: " .. vim.inspect(response.err))
end
local actions = response.result or {}
local preferred
for _, action in ipairs(actions) do
  if action.isPreferred then
    preferred = action
  end
end
if not preferred then
  return finish(false, ("FAIL no preferred action among %d"):format(#actions))
end
if not preferred.edit then
  local resolved = client.request_sync("codeAction/resolve", preferred, timeout, 0)
  preferred = resolved and resolved.result or preferred
end
if not preferred.edit then
  return finish(false, "FAIL the preferred action has no edit")
end
out("TITLE " .. preferred.title)
vim.lsp.util.apply_workspace_edit(preferred.edit, client.offset_encoding or "utf-16")
vim.cmd("write")
if not vim.wait(timeout, function() return ag001() == nil end, 50) then
  return finish(false, "FAIL AG001 still reported after the fix")
end
vim.lsp.stop_client(client_id)
vim.wait(2000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
finish(true, "FIXED")
