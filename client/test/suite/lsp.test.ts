// The extension and its server in the real extension host: diagnostics, hover, code actions.
import * as assert from "node:assert";
import * as vscode from "vscode";
import type { AutogradLintApi } from "../../src/extension";
import { activeApi, buggySample, ours, positionOf, waitFor } from "./helpers";

suite("autograd-lint in the VS Code extension host", () => {
  let api: AutogradLintApi;
  let document: vscode.TextDocument;

  suiteSetup(async () => {
    document = await vscode.workspace.openTextDocument(buggySample());
    await vscode.window.showTextDocument(document);
    api = await activeApi();
  });

  test("the server starts from python3 on PATH with no setting", () => {
    const launch = api.manager.currentLaunch;
    assert.ok(launch, `a server was launched (status: ${api.status.text})`);
    assert.deepStrictEqual(launch.args.slice(-2), ["-m", "autograd_lint.lsp"]);
    assert.ok(api.manager.languageClient, "the language client is running");
    assert.match(api.status.text, /\$\(check\) autograd-lint — autograd-lint \d/);
  });

  test("AG001 is reported on the backward() that reaches the freed graph", async () => {
    const [diagnostic] = await waitFor("the AG001 diagnostic", () => {
      const found = ours(document.uri, "AG001");
      return found.length > 0 ? found : undefined;
    });
    const backward = positionOf(document, "loss.backward()");
    assert.strictEqual(diagnostic.range.start.line, backward.line);
    assert.strictEqual(diagnostic.severity, vscode.DiagnosticSeverity.Error);
    assert.match(diagnostic.message, /`hidden` carries the graph/);
    const code = diagnostic.code as { value: string; target: vscode.Uri };
    assert.match(code.target.toString(), /docs\/rules\/AG001\.md$/);
    const related = (diagnostic.relatedInformation ?? []).map((info) => info.message).join("\n");
    assert.match(related, /carries the graph into the next iteration/);
    assert.strictEqual(ours(document.uri).length, 1, "no other finding in the sample");
  });

  test("hovering the backward() tells the story and the fix", async () => {
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      "vscode.executeHoverProvider",
      document.uri,
      positionOf(document, "loss.backward()", "loss.".length + 2),
    );
    const text = hovers
      .flatMap((hover) => hover.contents.map((part) => (typeof part === "string" ? part : part.value)))
      .join("\n");
    assert.match(text, /\*\*AG001\*\*/);
    assert.match(text, /Trying to backward through the graph a second time/);
    assert.match(text, /hidden = hidden\.detach\(\)/);
  });

  test("no hover on a line without a finding", async () => {
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      "vscode.executeHoverProvider",
      document.uri,
      positionOf(document, "import torch", 3),
    );
    const ourText = hovers
      .flatMap((hover) => hover.contents.map((part) => (typeof part === "string" ? part : part.value)))
      .filter((text) => text.includes("AG00"));
    assert.deepStrictEqual(ourText, []);
  });

  test("the preferred quick fix for AG001 detaches `hidden` and removes the finding", async () => {
    const [diagnostic] = ours(document.uri, "AG001");
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      "vscode.executeCodeActionProvider",
      document.uri,
      diagnostic.range,
      vscode.CodeActionKind.QuickFix.value,
      50, // resolve the edits of (up to) 50 actions
    );
    // (the API command does not carry an action's `diagnostics` back, so go by kind: the only
    // Python code-action provider in this extension host is ours)
    const fixes = actions.filter((action) => action.kind && vscode.CodeActionKind.QuickFix.contains(action.kind));
    const preferred = fixes.find((action) => action.isPreferred);
    assert.ok(preferred, `a preferred quick fix among ${fixes.map((action) => action.title).join(", ")}`);
    assert.match(preferred.title, /`hidden`/, "the preferred fix names the carried value");
    assert.ok(preferred.edit, `the fix "${preferred.title}" carries an edit`);
    try {
      assert.ok(await vscode.workspace.applyEdit(preferred.edit));
      await waitFor("AG001 to disappear after the fix", () => (ours(document.uri, "AG001").length === 0 ? true : undefined));
      assert.match(document.getText(), /hidden = hidden\.detach\(\)/);
    } finally {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand("workbench.action.files.revert");
    }
    await waitFor("AG001 back after reverting", () => (ours(document.uri, "AG001").length > 0 ? true : undefined));
  });

  test("restarting the server brings the diagnostics back", async () => {
    const result = await vscode.commands.executeCommand<{ ok: boolean }>("autograd-lint.restart");
    assert.deepStrictEqual(result, { ok: true });
    await waitFor("AG001 after the restart", () => (ours(document.uri, "AG001").length > 0 ? true : undefined));
    assert.match(api.status.text, /\$\(check\)/);
  });
});
