-- What both headless Neovim scripts share: start autograd-lint on AGL_FILE and wait for
-- its AG001. `dofile` it; it returns a table of helpers.
local M = {}
M.timeout = tonumber(os.getenv("AGL_TIMEOUT_MS") or "30000")

function M.out(line)
  io.stdout:write(line .. "\n")
end

function M.finish(ok, message)
  if message then
    M.out(message)
  end
  vim.cmd(ok and "qall!" or "cquit! 1")
end

-- Opens the file, starts the server, attaches it; returns the client id (or nil).
function M.start()
  local cmd = vim.fn.json_decode(os.getenv("AGL_SERVER_CMD"))
  local file = os.getenv("AGL_FILE")
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  vim.bo.filetype = "python"
  local client_id = vim.lsp.start_client({
    name = "autograd-lint",
    cmd = cmd,
    root_dir = vim.fn.fnamemodify(file, ":p:h"),
  })
  if client_id then
    vim.lsp.buf_attach_client(0, client_id)
  end
  return client_id
end

function M.ag001()
  for _, diagnostic in ipairs(vim.diagnostic.get(0)) do
    if diagnostic.code == "AG001" then
      return diagnostic
    end
  end
end

function M.wait_for(predicate)
  return vim.wait(M.timeout, predicate, 50)
end

function M.stop(client_id)
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
end

return M
