// The extension's own commands, as a user (or a code action) runs them.
import * as assert from "node:assert";
import * as vscode from "vscode";
import type { AutogradLintApi } from "../../src/extension";
import { confirmableCodes, serverRules } from "../../src/rules";
import { activeApi, buggySample, ours, positionOf, waitFor, waitForAsync, withSetting } from "./helpers";

type Result = { ok: boolean; reason?: string; detail?: string };

suite("commands", () => {
  let document: vscode.TextDocument;
  let editor: vscode.TextEditor;
  let api: AutogradLintApi;
  const serverCommands = () =>
    new Set(api.manager.languageClient?.initializeResult?.capabilities.executeCommandProvider?.commands ?? []);

  suiteSetup(async () => {
    api = await activeApi();
    document = await vscode.workspace.openTextDocument(buggySample());
    editor = await vscode.window.showTextDocument(document);
    await waitFor("AG001", () => (ours(document.uri, "AG001").length > 0 ? true : undefined));
  });

  test("every contributed command exists", async () => {
    const all = new Set(await vscode.commands.getCommands(true));
    for (const id of ["restart", "showLogs", "confirm", "fixAll", "explainRule", "installServer"]) {
      assert.ok(all.has(`autograd-lint.${id}`), `autograd-lint.${id} is registered`);
    }
  });

  test("confirm is refused while runtime.enabled is off (the default)", async () => {
    const position = positionOf(document, "loss.backward()", 2);
    editor.selection = new vscode.Selection(position, position);
    const result = await vscode.commands.executeCommand<Result>("autograd-lint.confirm");
    assert.deepStrictEqual(result, { ok: false, reason: "disabled" });
  });

  test("confirm with runtime.enabled in a trusted folder gets past the gate", async () => {
    assert.ok(vscode.workspace.isTrusted, "this session's folder is trusted");
    const restore = await withSetting("runtime.enabled", true);
    try {
      const position = positionOf(document, "import torch", 1);
      editor.selection = new vscode.Selection(position, position);
      // The server hears of the setting a moment later: until then it says "disabled".
      let result: Result | undefined;
      await waitForAsync("the server to see runtime.enabled", async () => {
        result = await vscode.commands.executeCommand<Result | undefined>("autograd-lint.confirm");
        return result?.reason !== "disabled";
      });
      if (!serverCommands().has("autograd-lint.confirm")) {
        assert.deepStrictEqual(result, { ok: false, reason: "unsupported" }); // the stand-in
        return;
      }
      // Past trust and the setting, away from a finding, the palette runs the file's training
      // loop (where no lens is shown, it is the way in): the run meets the carried hidden state.
      assert.ok(result?.ok, JSON.stringify(result));
      assert.match(result?.detail ?? "", /^AG001: confirmed at runtime: iteration 2 /);
    } finally {
      await restore();
    }
  });

  test("rule titles and confirmable codes come from the running server", () => {
    const rules = serverRules(api.manager.languageClient);
    assert.ok(rules, "the server's initialize result describes its rules");
    assert.ok(rules.some((rule) => rule.code === "AG001" && rule.title.length > 0));
    const confirmable = [...(confirmableCodes(api.manager.languageClient) ?? [])].sort();
    assert.deepStrictEqual(confirmable, ["AG001", "AG002", "AG007"]);
  });

  test("explainRule opens the rule's page", async () => {
    const result = await vscode.commands.executeCommand<Result>("autograd-lint.explainRule", "AG001");
    assert.strictEqual(result.ok, true);
    assert.match(result.detail ?? "", /docs\/rules\/AG001\.md$/);
  });

  test("fixAll applies the server's fix-all action", async () => {
    const result = await vscode.commands.executeCommand<Result>("autograd-lint.fixAll");
    try {
      assert.deepStrictEqual(result, { ok: true, detail: "Fix all autograd-lint problems" });
      await waitFor("AG001 fixed", () => (ours(document.uri, "AG001").length === 0 ? true : undefined));
      assert.match(document.getText(), /hidden = hidden\.detach\(\)/);
    } finally {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand("workbench.action.files.revert");
    }
    await waitFor("AG001 back after reverting", () => (ours(document.uri, "AG001").length > 0 ? true : undefined));
  });

  test("fixAll with nothing to fix says so", async () => {
    const clean = await vscode.workspace.openTextDocument({ language: "python", content: "import torch\n" });
    await vscode.window.showTextDocument(clean);
    try {
      const result = await vscode.commands.executeCommand<Result>("autograd-lint.fixAll");
      assert.deepStrictEqual(result, { ok: false, reason: "no fixes" });
    } finally {
      await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
      editor = await vscode.window.showTextDocument(document);
    }
  });
});
