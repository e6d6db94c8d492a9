// Plain-node tests (no VS Code): which server versions the client accepts.
import * as assert from "node:assert";
import { isCompatible, releaseParts, seriesLabel } from "../../src/version";

suite("server version compatibility", () => {
  test("release parts ignore pre-release and local tags", () => {
    assert.deepStrictEqual(releaseParts("0.1.0.dev3"), [0, 1, 0]);
    assert.deepStrictEqual(releaseParts("1.2rc1"), [1, 2]);
    assert.deepStrictEqual(releaseParts("v2.0.1+local"), [2, 0, 1]);
    assert.deepStrictEqual(releaseParts("unknown"), []);
  });

  test("0.x: the same minor series, at least the minimum", () => {
    assert.ok(isCompatible("0.1.0", "0.1.0"));
    assert.ok(isCompatible("0.1.7", "0.1.0"));
    assert.ok(!isCompatible("0.2.0", "0.1.0"));
    assert.ok(!isCompatible("0.0.9", "0.1.0"));
    assert.ok(!isCompatible("0.1.0", "0.1.2"));
  });

  test("1.x and later: the same major series", () => {
    assert.ok(isCompatible("1.4.0", "1.2.0"));
    assert.ok(!isCompatible("2.0.0", "1.2.0"));
    assert.ok(!isCompatible("1.1.9", "1.2.0"));
  });

  test("garbage is never compatible", () => {
    assert.ok(!isCompatible("", "0.1.0"));
    assert.ok(!isCompatible("dev", "0.1.0"));
  });

  test("labels for messages", () => {
    assert.strictEqual(seriesLabel("0.1.0"), "0.1.x (at least 0.1.0)");
    assert.strictEqual(seriesLabel("1.2.0"), "1.x (at least 1.2.0)");
  });
});
