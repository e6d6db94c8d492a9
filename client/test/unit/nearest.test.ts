// Plain-node tests (no VS Code): which diagnostics a palette command picks for the cursor.
import * as assert from "node:assert";
import { nearestDiagnostics } from "../../src/nearest";

const at = (line: number, from: number, to: number, code: string) => ({
  code,
  range: { start: { line, character: from }, end: { line, character: to } },
});

suite("diagnostics near the cursor", () => {
  const squiggle = at(40, 4, 19, "AG001"); // `loss.backward()` indented by four
  const other = at(12, 0, 8, "AG006");

  test("the one under the cursor", () => {
    assert.deepStrictEqual(nearestDiagnostics([other, squiggle], { line: 40, character: 10 }), [squiggle]);
  });

  test("on the flagged line but outside the squiggle: still that line's", () => {
    assert.deepStrictEqual(nearestDiagnostics([other, squiggle], { line: 40, character: 0 }), [squiggle]);
    assert.deepStrictEqual(nearestDiagnostics([other, squiggle], { line: 40, character: 40 }), [squiggle]);
  });

  test("under the cursor wins over the rest of the line", () => {
    const wide = at(40, 0, 40, "AG004");
    assert.deepStrictEqual(nearestDiagnostics([wide, squiggle], { line: 40, character: 2 }), [wide]);
  });

  test("another line: none", () => {
    assert.deepStrictEqual(nearestDiagnostics([other, squiggle], { line: 41, character: 4 }), []);
  });
});
