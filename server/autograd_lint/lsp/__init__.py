"""The autograd-lint language server (`autograd-lint lsp`); see docs/editors.md."""
