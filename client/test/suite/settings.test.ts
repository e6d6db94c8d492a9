// Settings travel to the running server (workspace/configuration through our middleware).
import * as assert from "node:assert";
import * as vscode from "vscode";
import { activeApi, buggySample, ours, waitFor, waitForAsync, withSetting } from "./helpers";

suite("settings reach the server", () => {
  let document: vscode.TextDocument;

  suiteSetup(async () => {
    await activeApi();
    document = await vscode.workspace.openTextDocument(buggySample());
    await vscode.window.showTextDocument(document);
    await waitFor("AG001", () => (ours(document.uri, "AG001").length > 0 ? true : undefined));
  });

  const severityOfAG001 = () => ours(document.uri, "AG001")[0]?.severity;

  test("severity: VS Code's 'information' becomes the server's info level", async () => {
    const restore = await withSetting("severity", { AG001: "information" });
    try {
      await waitFor("AG001 as information", () =>
        severityOfAG001() === vscode.DiagnosticSeverity.Information ? true : undefined,
      );
    } finally {
      await restore();
    }
    await waitFor("AG001 back to error", () => (severityOfAG001() === vscode.DiagnosticSeverity.Error ? true : undefined));
  });

  test("ignore removes the rule's findings, and clearing it brings them back", async () => {
    const restore = await withSetting("ignore", ["AG001"]);
    try {
      await waitFor("AG001 to go away", () => (ours(document.uri, "AG001").length === 0 ? true : undefined));
    } finally {
      await restore();
    }
    await waitFor("AG001 back", () => (ours(document.uri, "AG001").length > 0 ? true : undefined));
  });

  test("enable=false silences the folder", async () => {
    const restore = await withSetting("enable", false);
    try {
      await waitFor("no findings while disabled", () => (ours(document.uri).length === 0 ? true : undefined));
    } finally {
      await restore();
    }
    await waitFor("AG001 back", () => (ours(document.uri, "AG001").length > 0 ? true : undefined));
  });

  test("runtime settings reach the server (autograd-lint.serverStatus)", async () => {
    const serverMaxSteps = async () => {
      const answer = await vscode.commands.executeCommand<{ clientSettings: { runtime: { maxSteps: number } } }>(
        "autograd-lint.serverStatus",
        { uri: document.uri.toString() },
      );
      return answer.clientSettings.runtime.maxSteps;
    };
    assert.strictEqual(await serverMaxSteps(), 5);
    const restore = await withSetting("runtime.maxSteps", 3);
    try {
      await waitForAsync("the server's runtime.maxSteps to be 3", async () => (await serverMaxSteps()) === 3);
    } finally {
      await restore();
    }
    await waitForAsync("the server's runtime.maxSteps back to 5", async () => (await serverMaxSteps()) === 5);
  });
});
