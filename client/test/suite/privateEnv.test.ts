// The server that ships with the extension (importStrategy=useBundled): first bundled/libs, run
// with the user's interpreter and nothing installed; then, after "Install Bundled Server", the
// private environment built from the wheel inside the extension (dependencies from the index).
import * as assert from "node:assert";
import * as fs from "node:fs";
import * as vscode from "vscode";
import type { AutogradLintApi } from "../../src/extension";
import type { Launch } from "../../src/server";
import { activeApi, buggySample, ours, waitFor, withSetting } from "./helpers";

suite("the bundled server", () => {
  let api: AutogradLintApi;
  let document: vscode.TextDocument;

  suiteSetup(async () => {
    api = await activeApi();
    document = await vscode.workspace.openTextDocument(buggySample());
    await vscode.window.showTextDocument(document);
  });

  const launched = (label: string, matches: (launch: Launch) => boolean, timeout?: number) =>
    waitFor(
      label,
      () => {
        const current = api.manager.currentLaunch;
        return current && matches(current) && api.manager.languageClient ? current : undefined;
      },
      timeout,
    );

  test("useBundled serves from bundled/libs with the user's Python, then from the private environment", async function () {
    this.timeout(300_000);
    const restore = await withSetting("importStrategy", "useBundled");
    try {
      const fromLibs = await launched("a server started from bundled/libs", (launch) =>
        launch.args.some((arg) => /[\\/]bundled[\\/]libs$/.test(arg)),
      );
      assert.ok(fs.existsSync(fromLibs.args.at(-1) as string), "bundled/libs exists");
      assert.doesNotMatch(fromLibs.command, /globalStorage/, "nothing was installed for it");
      assert.match(fromLibs.description, /^bundled server /);
      await waitFor("AG001 from bundled/libs", () => (ours(document.uri, "AG001").length > 0 ? true : undefined));

      await vscode.commands.executeCommand("autograd-lint.installServer");
      const fromVenv = await launched(
        "a server launched from the private environment",
        (launch) => /globalStorage/.test(launch.command),
        240_000,
      );
      assert.ok(fs.existsSync(fromVenv.command), `${fromVenv.command} exists`);
      await waitFor("AG001 from the private environment", () =>
        ours(document.uri, "AG001").length > 0 ? true : undefined,
      );
    } finally {
      await restore();
    }
    await waitFor("the environment's server again", () =>
      api.manager.currentLaunch?.description.startsWith("autograd-lint ") && api.manager.languageClient ? true : undefined,
    );
  });
});
