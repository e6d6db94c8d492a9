// The extension's commands. Each returns what it did, so that tests (and other extensions)
// can tell a refusal from a success without reading notifications.
import * as fs from "node:fs";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { nearestDiagnostics } from "./nearest";
import { findInterpreter } from "./python";
import { confirmableCodes, serverRules } from "./rules";
import type { ServerManager } from "./server";
import { SECTION } from "./settings";

export const CONFIRM = "autograd-lint.confirm";
export const FIX_ALL_KIND = vscode.CodeActionKind.SourceFixAll.append(SECTION);
const RULE_DOCS = "https://github.com/autograd-lint/autograd-lint/blob/main/docs/rules/";

export type CommandResult = { ok: true; detail?: string } | { ok: false; reason: string };

function ourDiagnosticsAt(uri: vscode.Uri, position?: vscode.Position): vscode.Diagnostic[] {
  const ours = vscode.languages.getDiagnostics(uri).filter((d) => d.source === SECTION);
  // Under the cursor, else on its line: the cursor is often outside the squiggle.
  return position ? nearestDiagnostics(ours, position) : ours;
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
 * finding under the cursor whose rule the server says a run can confirm (any finding when
 * the server does not say; it refuses the others itself). Elsewhere in the file, a run of
 * its training loops, as the "Run at runtime" lens asks: the palette is the way in where no
 * lens is shown (lenses turned off, a notebook cell). The server says when there is none.
 */
export function confirmArguments(client: LanguageClient | undefined): unknown[] | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return undefined;
  }
  const confirmable = confirmableCodes(client);
  const finding = ourDiagnosticsAt(editor.document.uri, editor.selection.active).find(
    (d) => !confirmable || confirmable.has(codeOf(d)),
  );
  if (!finding) {
    return [{ uri: editor.document.uri.toString(), discover: true }];
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
  register("autograd-lint.explainRule", (code?: string) => explainRule(context, manager, code));
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

/** The rules to pick from: the server's, else the codes of the pages the extension ships. */
function rulePicks(context: vscode.ExtensionContext, manager: ServerManager): vscode.QuickPickItem[] {
  const rules = serverRules(manager.languageClient);
  if (rules) {
    return rules.map((rule) => ({ label: rule.code, description: rule.title }));
  }
  const pages = context.asAbsolutePath("docs/rules");
  const files = fs.existsSync(pages) ? fs.readdirSync(pages) : [];
  return files.filter((file) => /^AG\d+\.md$/.test(file)).map((file) => ({ label: file.slice(0, -3) }));
}

async function explainRule(
  context: vscode.ExtensionContext,
  manager: ServerManager,
  code?: string,
): Promise<CommandResult> {
  let diagnostic: vscode.Diagnostic | undefined;
  if (!code) {
    const editor = vscode.window.activeTextEditor;
    diagnostic = editor && ourDiagnosticsAt(editor.document.uri, editor.selection.active)[0];
    code = diagnostic && codeOf(diagnostic);
  }
  if (!code) {
    const picked = await vscode.window.showQuickPick(rulePicks(context, manager), { placeHolder: "Which rule?" });
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
