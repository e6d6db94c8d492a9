-- Headless Neovim applies autograd-lint's preferred quick fix (nvim 0.7 to 0.11):
--   AGL_SERVER_CMD='["autograd-lint", "lsp"]' AGL_FILE=train.py \
--     nvim --headless --clean -n -c 'luafile tests/nvim/fix.lua'
-- Waits for the AG001 diagnostic, asks for code actions on it, applies the preferred one
-- (resolving it first when the server left its edit out), writes the file, waits for the
-- AG001 diagnostic to go, and prints `TITLE <title>` then `FIXED` (or `FAIL ...`).
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
local c = dofile(here .. "client.lua")
local out, finish, timeout = c.out, c.finish, c.timeout

local client_id = c.start()
if not client_id then
  return finish(false, "FAIL start_client returned nil")
end
local client = vim.lsp.get_client_by_id(client_id)
local ag001 = c.ag001

if not c.wait_for(function() return ag001() ~= nil end) then
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
if not c.wait_for(function() return ag001() == nil end) then
  return finish(false, "FAIL AG001 still reported after the fix")
end
c.stop(client_id)
finish(true, "FIXED")
