"""One source text seen two ways: `ast` to reason about it, libcst to rewrite it losslessly.

Nodes of the two trees are matched by their start position (code-point columns on
both sides), so a strategy finds what to change with `ast` and changes the libcst
node at the same place. A rewrite is planned as operations on libcst statements and
expressions and carried out by one transformer pass; comments, blank lines, quoting
and formatting outside the changed nodes come out untouched.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..analysis.model import Span
from .text import split_lines

COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)


class Document:
    """Parsed once per source text; raises SyntaxError or cst.ParserSyntaxError."""

    def __init__(self, source: str):
        self.source = source
        self.lines = split_lines(source)
        self.tree = ast.parse(source)
        self.module = cst.parse_module(source)
        # Each top-level statement's code and first line: positions are worked out only
        # for the statements a fix looks into, and the rest of the text is reused as is.
        module = self.module
        self.top_code = [module.code_for_node(statement) for statement in module.body]
        self.top_header = "".join(module.code_for_node(line) for line in module.header)
        self.top_footer = "".join(module.code_for_node(line) for line in module.footer)
        whole = self.top_header + "".join(self.top_code) + self.top_footer
        # Without a final newline libcst still ends the last line in the pieces.
        self.cut_end = len(whole) - len(source)
        if whole[: len(source)] != source or self.cut_end not in (0, 1, 2):
            raise ValueError("libcst pieces do not add up to the source")
        self.top_lines = []
        line = 1 + self.top_header.count("\n")
        for code in self.top_code:
            self.top_lines.append(line)
            line += code.count("\n")
        self._indexed: set[int] = set()
        self._cst_at: dict[tuple[int, int], list[cst.CSTNode]] = {}
        self.cst_range: dict[cst.CSTNode, object] = {}
        self.top_of: dict[cst.CSTNode, int] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        for parent in ast.walk(self.tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent

    # -- positions ----------------------------------------------------------------------
    def column(self, line: int, byte_column: int) -> int:
        """`ast`'s UTF-8 byte column as a code-point column."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_column
        return len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="replace"))

    def start(self, node: ast.AST) -> tuple[int, int]:
        return node.lineno, self.column(node.lineno, node.col_offset)

    def span(self, node: ast.AST) -> Span:
        return Span.of(
            node.lineno,
            self.column(node.lineno, node.col_offset),
            node.end_lineno,
            self.column(node.end_lineno, node.end_col_offset),
        )

    def text(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.source, node) or ast.unparse(node)

    # -- finding nodes ------------------------------------------------------------------
    def statement_at(self, line: int, column: int) -> ast.stmt | None:
        """The innermost statement that starts exactly at (line, column)."""
        found = None
        for node in ast.walk(self.tree):
            if isinstance(node, ast.stmt) and self.start(node) == (line, column):
                found = node
        return found

    def statement_containing(self, span: Span) -> ast.stmt | None:
        """The innermost statement whose range holds `span`'s start."""
        best = None
        target = (span.start.line, span.start.column)
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.stmt):
                continue
            here = self.span(node)
            inside = (
                (here.start.line, here.start.column)
                <= target
                <= (
                    here.end.line,
                    here.end.column,
                )
            )
            if inside and (best is None or self.start(node) >= self.start(best)):
                best = node
        return best

    def expression_at(self, span: Span) -> ast.expr | None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.expr) and self.span(node) == span:
                return node
        return None

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        while node in self.parents:
            node = self.parents[node]
            yield node

    def scope_of(self, node: ast.AST) -> ast.AST:
        return next(a for a in self.ancestors(node) if isinstance(a, SCOPES))

    def block_of(self, statement: ast.stmt) -> tuple[ast.AST, str, list[ast.stmt]]:
        """(owner, field, body) of the statement list that holds `statement`."""
        parent = self.parents[statement]
        for name in ("body", "orelse", "finalbody"):
            body = getattr(parent, name, None)
            if isinstance(body, list) and any(s is statement for s in body):
                return parent, name, body
        for handler in getattr(parent, "handlers", []):
            if any(s is statement for s in handler.body):
                return handler, "body", handler.body
        raise LookupError("statement not in a block")

    # -- the libcst side ----------------------------------------------------------------
    def _index_line(self, line: int) -> None:
        """Positions of the nodes of the top-level statement that holds `line`."""
        index = bisect.bisect_right(self.top_lines, line) - 1
        if index < 0 or index in self._indexed:
            return
        self._indexed.add(index)
        statement = self.module.body[index]
        alone = self.module.with_changes(body=[statement], header=[], footer=[])
        positions = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
        offset = self.top_lines[index] - 1
        for node, where in positions.items():
            start = (where.start.line + offset, where.start.column)
            self._cst_at.setdefault(start, []).append(node)
            self.cst_range[node] = ((start), (where.end.line + offset, where.end.column))
            self.top_of[node] = index

    def _nodes_at(self, line: int, column: int) -> list[cst.CSTNode]:
        self._index_line(line)
        return self._cst_at.get((line, column), [])

    def cst_statement(self, statement: ast.stmt) -> cst.CSTNode | None:
        """The libcst statement for `statement`: a compound one, or the whole simple line.

        None for a statement that shares its line with others (`a = 1; b = 2`), which
        a line-wise rewrite would change beyond itself.
        """
        candidates = self._nodes_at(*self.start(statement))
        for node in candidates:
            if isinstance(node, cst.SimpleStatementLine):
                return node if len(node.body) == 1 else None
            if isinstance(node, cst.BaseCompoundStatement):
                return node
        return None

    def cst_expression(self, expression: ast.expr) -> cst.BaseExpression | None:
        span = self.span(expression)
        for node in self._nodes_at(span.start.line, span.start.column):
            if not isinstance(node, cst.BaseExpression):
                continue
            if self.cst_range[node][1] == (span.end.line, span.end.column):
                return node
        return None

    def parse_statements(self, code: str) -> list[cst.BaseStatement]:
        """Statements written in this module's indentation and line endings."""
        config = self.module.config_for_parsing
        return list(cst.parse_module(code, config=config).body)

    def parse_expression(self, code: str) -> cst.BaseExpression:
        return cst.parse_expression(code, config=self.module.config_for_parsing)


class Plan:
    """Changes to make in one pass over the libcst tree."""

    def __init__(self, document: Document):
        self.document = document
        self.before: dict[cst.CSTNode, list[cst.BaseStatement]] = {}
        self.after: dict[cst.CSTNode, list[cst.BaseStatement]] = {}
        self.body_top: dict[cst.CSTNode, list[cst.BaseStatement]] = {}
        self.removed: set[cst.CSTNode] = set()
        self.replaced: dict[cst.CSTNode, cst.CSTNode] = {}

    def insert_before(self, statement: cst.CSTNode, code: str) -> None:
        self.before.setdefault(statement, []).extend(self.document.parse_statements(code))

    def insert_after(self, statement: cst.CSTNode, code: str) -> None:
        self.after.setdefault(statement, []).extend(self.document.parse_statements(code))

    def insert_at_top(self, compound: cst.CSTNode, code: str) -> None:
        self.body_top.setdefault(compound, []).extend(self.document.parse_statements(code))

    def insert_nodes_at_top(self, compound: cst.CSTNode, nodes: list[cst.BaseStatement]) -> None:
        self.body_top.setdefault(compound, []).extend(nodes)

    def remove(self, statement: cst.CSTNode) -> None:
        self.removed.add(statement)

    def replace(self, node: cst.CSTNode, new: cst.CSTNode) -> None:
        self.replaced[node] = new

    def new_source(self) -> str:
        """The text after the changes; only the top-level statements they touch are redone."""
        document = self.document
        module = document.module
        keys = [*self.before, *self.after, *self.body_top, *self.removed, *self.replaced]
        touched = {document.top_of[node] for node in keys if node in document.top_of}
        rewriter = _Rewriter(self)
        originals = list(module.body)
        updated = [
            statement.visit(rewriter) if index in touched else statement
            for index, statement in enumerate(originals)
        ]
        body = rewriter.rebuild(originals, updated)
        code_of = {id(s): code for s, code in zip(originals, document.top_code)}
        parts = [document.top_header]
        for statement in body:
            known = code_of.get(id(statement))
            parts.append(known if known is not None else module.code_for_node(statement))
        parts.append(document.top_footer)
        text = "".join(parts)
        return text[: len(text) - document.cut_end] if document.cut_end else text


class _Rewriter(cst.CSTTransformer):
    def __init__(self, plan: Plan):
        super().__init__()
        self.plan = plan

    def on_leave(self, original, updated):
        plan = self.plan
        if original in plan.replaced:
            updated = plan.replaced[original]
        if original in plan.body_top and isinstance(
            getattr(updated, "body", None), cst.IndentedBlock
        ):
            block = updated.body
            updated = updated.with_changes(
                body=block.with_changes(body=[*plan.body_top[original], *block.body])
            )
        if isinstance(original, cst.IndentedBlock):
            updated = updated.with_changes(body=self.rebuild(original.body, updated.body))
        return updated

    def rebuild(self, originals, updated) -> list:
        plan = self.plan
        out = []
        carried_blank: list[cst.EmptyLine] = []
        for original, new in zip(originals, updated):
            out.extend(plan.before.get(original, ()))
            if original in plan.removed:
                # Blank lines above a removed statement stay where they were.
                carried_blank.extend(line for line in new.leading_lines if line.comment is None)
            else:
                if carried_blank:
                    new = new.with_changes(leading_lines=[*carried_blank, *new.leading_lines])
                    carried_blank = []
                out.append(new)
            out.extend(plan.after.get(original, ()))
        if not out:
            out.append(cst.SimpleStatementLine([cst.Pass()]))
        return out
