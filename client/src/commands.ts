// The extension's commands. Each returns what it did, so that tests (and other extensions)
// can tell a refusal from a success without reading notifications.
import * as fs from "node:fs";
import * as vscode from "vscode";
import { findInterpreter } from "./python";
import type { ServerManager } from "./server";
import { SECTION } from "./settings";

export const CONFIRM = "autograd-lint.confirm";
export const FIX_ALL_KIND = vscode.CodeActionKind.SourceFixAll.append(SECTION);
const RULE_DOCS = "https://github.com/autograd-lint/autograd-lint/blob/main/docs/rules/";
const RULE_TITLES: Record<string, string> = {
  AG000: "syntax error",
  AG001: "backward through a graph carried across iterations",
  AG002: "second backward through a shared graph already freed",
  AG003: "graph accumulated across iterations",
  AG004: "retain_graph=True in a loop",
  AG005: "zero_grad misplaced",
  AG006: "`.data` used as a value",
  AG007: "in-place change of a tensor saved for backward",
};
/** The rules whose findings runtime confirmation can check. */
const CONFIRMABLE = new Set(["AG001", "AG002", "AG003", "AG007"]);

export type CommandResult = { ok: true; detail?: string } | { ok: false; reason: string };

function ourDiagnosticsAt(uri: vscode.Uri, position?: vscode.Position): vscode.Diagnostic[] {
  return vscode.languages
    .getDiagnostics(uri)
    .filter((d) => d.source === SECTION && (!position || d.range.contains(position)));
}

function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  return String(typeof code === "object" ? code.value : code ?? "");
}

/**
 * Whether runtime confirmation may run for `uri`: only in a trusted workspace, and only when
 * the user turned `runtime.enabled` on. Shows the reason when it may not.
 */
export function runtimeAllowed(uri: vscode.Uri | undefined): CommandResult {
  if (!vscode.workspace.isTrusted) {
    const reason =
      "autograd-lint: runtime confirmation runs your script, so it is refused in an untrusted folder (Restricted Mode). Trust the folder to use it.";
    void vscode.window.showErrorMessage(reason, "Manage Workspace Trust").then((choice) => {
      if (choice) {
        void vscode.commands.executeCommand("workbench.trust.manage");
      }
    });
    return { ok: false, reason: "untrusted" };
  }
  if (!vscode.workspace.getConfiguration(SECTION, uri).get<boolean>("runtime.enabled", false)) {
    void vscode.window
      .showWarningMessage(
        "autograd-lint: runtime confirmation is off. Turn on `autograd-lint.runtime.enabled` to let it run your script (only when you ask).",
        "Open Setting",
      )
      .then((choice) => {
        if (choice) {
          void vscode.commands.executeCommand("workbench.action.openSettings", `${SECTION}.runtime.enabled`);
        }
      });
    return { ok: false, reason: "disabled" };
  }
  return { ok: true };
}

/**
 * The arguments for the server's confirm command when it is run from the palette: the
 * confirmable finding under the cursor.
 */
export function confirmArguments(): unknown[] | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return undefined;
  }
  const finding = ourDiagnosticsAt(editor.document.uri, editor.selection.active).find((d) =>
    CONFIRMABLE.has(codeOf(d)),
  );
  if (!finding) {
    return undefined;
  }
  const { start, end } = finding.range;
  return [
    {
      uri: editor.document.uri.toString(),
      code: codeOf(finding),
      range: {
        start: { line: start.line, character: start.character },
        end: { line: end.line, character: end.character },
      },
    },
  ];
}

export function registerCommands(
  context: vscode.ExtensionContext,
  manager: ServerManager,
  log: vscode.LogOutputChannel,
): void {
  const register = (id: string, handler: (...args: never[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, handler));

  register("autograd-lint.restart", async (): Promise<CommandResult> => {
    await manager.restart();
    return manager.languageClient ? { ok: true } : { ok: false, reason: "the server did not start" };
  });
  register("autograd-lint.showLogs", () => log.show());
  register("autograd-lint.installServer", async (): Promise<CommandResult> => {
    const installed = await manager.installInto(await findInterpreter(manager.scope));
    if (installed) {
      await manager.restart();
    }
    return installed ? { ok: true } : { ok: false, reason: "install failed" };
  });
  register("autograd-lint.fixAll", fixAll);
  register("autograd-lint.explainRule", (code?: string) => explainRule(context, code));
  registerConfirmFallback(context, manager);
}

/**
 * `autograd-lint.confirm` is the server's command when the server offers it (the language
 * client registers it, and the middleware checks trust first); otherwise this stand-in says
 * why it cannot run. It must not exist while the client's registration does.
 */
function registerConfirmFallback(context: vscode.ExtensionContext, manager: ServerManager): void {
  let fallback: vscode.Disposable | undefined;
  const sync = (serverCommands: ReadonlySet<string> | undefined) => {
    if (!serverCommands || serverCommands.has(CONFIRM)) {
      fallback?.dispose();
      fallback = undefined;
    } else {
      fallback ??= vscode.commands.registerCommand(CONFIRM, (): CommandResult => {
        const allowed = runtimeAllowed(vscode.window.activeTextEditor?.document.uri);
        if (!allowed.ok) {
          return allowed;
        }
        void vscode.window.showWarningMessage(
          "autograd-lint: this language server does not offer runtime confirmation yet (or it is not running).",
        );
        return { ok: false, reason: "unsupported" };
      });
    }
  };
  // The client registers the server's commands while it starts; ours must be gone by then.
  context.subscriptions.push(manager.onDidChangeServerCommands(sync), { dispose: () => fallback?.dispose() });
  sync(new Set());
}

async function fixAll(): Promise<CommandResult> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "python") {
    return { ok: false, reason: "no Python editor" };
  }
  const document = editor.document;
  const whole = new vscode.Range(0, 0, document.lineCount, 0);
  const actions =
    (await vscode.commands.executeCommand<vscode.CodeAction[]>(
      "vscode.executeCodeActionProvider",
      document.uri,
      whole,
      FIX_ALL_KIND.value,
      1,
    )) ?? [];
  const action = actions.find((candidate) => candidate.kind && FIX_ALL_KIND.contains(candidate.kind));
  if (!action || (!action.edit && !action.command)) {
    void vscode.window.showInformationMessage("autograd-lint: nothing to fix automatically in this file.");
    return { ok: false, reason: "no fixes" };
  }
  if (action.edit && !(await vscode.workspace.applyEdit(action.edit))) {
    return { ok: false, reason: "the edit could not be applied" };
  }
  if (action.command) {
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  }
  return { ok: true, detail: action.title };
}

async function explainRule(context: vscode.ExtensionContext, code?: string): Promise<CommandResult> {
  let diagnostic: vscode.Diagnostic | undefined;
  if (!code) {
    const editor = vscode.window.activeTextEditor;
    diagnostic = editor && ourDiagnosticsAt(editor.document.uri, editor.selection.active)[0];
    code = diagnostic && codeOf(diagnostic);
  }
  if (!code) {
    const picked = await vscode.window.showQuickPick(
      Object.entries(RULE_TITLES).map(([label, description]) => ({ label, description })),
      { placeHolder: "Which rule?" },
    );
    code = picked?.label;
  }
  if (!code) {
    return { ok: false, reason: "no rule chosen" };
  }
  code = code.toUpperCase();
  // Offline first: the rule pages ship inside the extension.
  const local = context.asAbsolutePath(`docs/rules/${code}.md`);
  if (fs.existsSync(local)) {
    await vscode.commands.executeCommand("markdown.showPreview", vscode.Uri.file(local));
    return { ok: true, detail: vscode.Uri.file(local).toString() };
  }
  const described = typeof diagnostic?.code === "object" ? diagnostic.code.target : undefined;
  const url = described ?? vscode.Uri.parse(`${RULE_DOCS}${code}.md`);
  await vscode.env.openExternal(url);
  return { ok: true, detail: url.toString() };
}
