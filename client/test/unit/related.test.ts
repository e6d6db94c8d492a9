// Plain-node tests (no VS Code): evidence rows that point at the diagnostic itself.
import * as assert from "node:assert";
import { withoutSelfReferences } from "../../src/related";

const at = (line: number, start: number, end: number) => ({
  start: { line, character: start },
  end: { line, character: end },
});
const row = (uri: string, range: ReturnType<typeof at>, message: string) => ({ location: { uri, range }, message });

suite("related information in VS Code's hover", () => {
  const uri = "file:///w/train.py";

  test("rows on the diagnostic's own range go, rows elsewhere stay", () => {
    const diagnostic = {
      range: at(40, 4, 19),
      relatedInformation: [
        row(uri, at(24, 22, 50), "graph built here"),
        row(uri, at(37, 4, 10), "`hidden` carries the graph"),
        row(uri, at(40, 4, 19), "frees the graph in iteration 1"),
        row(uri, at(40, 4, 8), "reaches it again in iteration 2"),
      ],
    };
    const kept = withoutSelfReferences(diagnostic, uri).relatedInformation?.map((r) => r.location.range.start.line);
    assert.deepStrictEqual(kept, [24, 37]);
  });

  test("the same range in another document is not the diagnostic", () => {
    const diagnostic = { range: at(3, 0, 5), relatedInformation: [row("file:///w/models.py", at(3, 0, 5), "stored")] };
    assert.strictEqual(withoutSelfReferences(diagnostic, uri).relatedInformation?.length, 1);
  });

  test("no row left: no related information at all", () => {
    const diagnostic = { range: at(3, 0, 5), relatedInformation: [row(uri, at(3, 0, 5), "here")] };
    assert.strictEqual(withoutSelfReferences(diagnostic, uri).relatedInformation, undefined);
  });
});
