// The new user's way in: importStrategy=useBundled builds the private environment from the
// wheel inside the extension (dependencies from the package index) and runs the server there.
import * as assert from "node:assert";
import * as fs from "node:fs";
import * as vscode from "vscode";
import type { AutogradLintApi } from "../../src/extension";
import { activeApi, buggySample, ours, waitFor, withSetting } from "./helpers";

suite("the private server environment", () => {
  let api: AutogradLintApi;
  let document: vscode.TextDocument;

  suiteSetup(async () => {
    api = await activeApi();
    document = await vscode.workspace.openTextDocument(buggySample());
    await vscode.window.showTextDocument(document);
  });

  test("useBundled installs the bundled wheel into a venv and serves from it", async function () {
    this.timeout(240_000);
    const restore = await withSetting("importStrategy", "useBundled");
    try {
      const launch = await waitFor(
        "a server launched from the private environment",
        () => {
          const current = api.manager.currentLaunch;
          return current?.description.startsWith("bundled server") && api.manager.languageClient ? current : undefined;
        },
        200_000,
      );
      assert.ok(fs.existsSync(launch.command), `${launch.command} exists`);
      assert.match(launch.command, /globalStorage/);
      await waitFor("AG001 from the bundled server", () => (ours(document.uri, "AG001").length > 0 ? true : undefined));
    } finally {
      await restore();
    }
    await waitFor("the environment's server again", () =>
      api.manager.currentLaunch?.description.startsWith("autograd-lint ") && api.manager.languageClient ? true : undefined,
    );
  });
});
