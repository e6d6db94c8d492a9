// Plain-node tests (no VS Code): the rules read from the server's initialize result.
import * as assert from "node:assert";
import type { LanguageClient } from "vscode-languageclient/node";
import { confirmableCodes, listCodes, serverRules } from "../../src/rules";

function clientWith(experimental: unknown): LanguageClient {
  return { initializeResult: { capabilities: { experimental } } } as unknown as LanguageClient;
}

const RULES = [
  { code: "AG001", name: "a", title: "carried", severity: "error", confirmable: true, docs: "u1" },
  { code: "AG003", name: "c", title: "accumulated", severity: "warning", confirmable: false, docs: "u3" },
  { code: "AG007", name: "g", title: "in-place", severity: "error", confirmable: true, docs: "u7" },
];

suite("rules from the server", () => {
  test("titles and confirmable codes come from experimental.autogradLint.rules", () => {
    const client = clientWith({ autogradLint: { rules: RULES } });
    assert.deepStrictEqual(
      serverRules(client)?.map((rule) => [rule.code, rule.title]),
      [["AG001", "carried"], ["AG003", "accumulated"], ["AG007", "in-place"]],
    );
    assert.deepStrictEqual([...(confirmableCodes(client) ?? [])], ["AG001", "AG007"]);
  });

  test("no server, or one that does not describe its rules: unknown, not empty", () => {
    assert.strictEqual(serverRules(undefined), undefined);
    assert.strictEqual(confirmableCodes(clientWith(undefined)), undefined);
    assert.strictEqual(serverRules(clientWith({ other: 1 })), undefined);
  });

  test("malformed entries are dropped", () => {
    const client = clientWith({ autogradLint: { rules: [RULES[0], { code: 7 }, null, "AG002"] } });
    assert.deepStrictEqual(serverRules(client)?.map((rule) => rule.code), ["AG001"]);
  });

  test("codes are listed for a sentence", () => {
    assert.strictEqual(listCodes(["AG007", "AG001", "AG002"]), "AG001, AG002 or AG007");
    assert.strictEqual(listCodes(["AG001"]), "AG001");
  });
});
