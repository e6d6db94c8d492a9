// autograd-lint for VS Code: starts the autograd-lint language server (Python) and keeps its
// settings, workspace trust and interpreter in step with the editor.
import * as vscode from "vscode";
import type { LanguageClientOptions } from "vscode-languageclient/node";
import { BundledServer } from "./bundledServer";
import { CONFIRM, confirmArguments, registerCommands, runtimeAllowed } from "./commands";
import { onDidChangePythonEnvironment } from "./python";
import { reportWithoutSelfReferences, withoutSelfReferences } from "./related";
import { confirmableCodes, listCodes } from "./rules";
import { ServerManager } from "./server";
import { launchInputs, RESTART_KEYS, SECTION } from "./settings";
import { StatusItem } from "./status";

/** What activate() returns: lets tests and other extensions see the server. */
export interface AutogradLintApi {
  readonly manager: ServerManager;
  readonly status: StatusItem;
  /** Resolves once the first start attempt finished (whatever its outcome). */
  readonly started: Promise<void>;
}

let manager: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): AutogradLintApi {
  // A LogOutputChannel: vscode-languageclient writes the server's trace into it with levels.
  const log = vscode.window.createOutputChannel("autograd-lint", { log: true });
  const status = new StatusItem();
  context.subscriptions.push(log, status);

  const middleware: NonNullable<LanguageClientOptions["middleware"]> = {
    // Evidence rows on the diagnostic's own range would push the hover's fix out of sight
    // (related.ts): pushed, pulled and workspace diagnostics alike.
    handleDiagnostics: (uri, diagnostics, next) =>
      next(
        uri,
        diagnostics.map((diagnostic) => withoutSelfReferences(diagnostic, uri)),
      ),
    provideDiagnostics: async (document, previousResultId, token, next) => {
      const report = await next(document, previousResultId, token);
      return reportWithoutSelfReferences(report, document instanceof vscode.Uri ? document : document.uri);
    },
    provideWorkspaceDiagnostics: async (resultIds, token, reporter, next) => {
      const trimmed: typeof reporter = (chunk) => {
        chunk?.items.forEach((item) => reportWithoutSelfReferences(item));
        reporter(chunk);
      };
      const report = await next(resultIds, token, trimmed);
      report?.items.forEach((item) => reportWithoutSelfReferences(item));
      return report;
    },
    // The server pulls settings per folder; add what VS Code knows and the settings do not say.
    workspace: {
      // Sent when a setting in the section changes (the server registers for it): always our
      // shape, with trust, so that a server reading the payload sees what one pulling does.
      didChangeConfiguration: async () => {
        await manager?.sendSettings();
      },
      configuration: async (params, token, next) => {
        const values = await next(params, token);
        if (!Array.isArray(values) || !manager) {
          return values;
        }
        return values.map((value, index) => {
          const item = params.items[index];
          return item.section === SECTION
            ? manager?.settings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)
            : value;
        });
      },
    },
    // The server runs the user's script for this command: never in an untrusted folder.
    executeCommand: async (command, args, next) => {
      if (command === CONFIRM) {
        // A code action or lens names the document; the palette means the active editor.
        const named = (args[0] as { uri?: unknown } | undefined)?.uri;
        const target = typeof named === "string" ? vscode.Uri.parse(named) : vscode.window.activeTextEditor?.document.uri;
        const allowed = runtimeAllowed(target);
        if (!allowed.ok) {
          return allowed;
        }
        if (args.length === 0) {
          const client = manager?.languageClient;
          const fromCursor = confirmArguments(client);
          if (!fromCursor) {
            const codes = confirmableCodes(client);
            const which = codes?.size ? `a finding (${listCodes(codes)})` : "a finding";
            void vscode.window.showInformationMessage(
              `autograd-lint: put the cursor on ${which} to confirm it at runtime.`,
            );
            return { ok: false, reason: "no finding" };
          }
          args = fromCursor;
        }
      }
      return next(command, args);
    },
  };

  const bundled = new BundledServer(context, log);
  manager = new ServerManager(context, log, status, bundled, middleware);
  const servers = manager;
  context.subscriptions.push({ dispose: () => void servers.dispose() });
  registerCommands(context, servers, log);

  let launchedWith = launchInputs(servers.scope?.uri);
  const restartIfLaunchChanged = () => {
    const now = launchInputs(servers.scope?.uri);
    if (now !== launchedWith) {
      launchedWith = now;
      void servers.restart();
      return true;
    }
    return false;
  };
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      // Other changes in the section reach the server through the client's configuration
      // feature (and the middleware above).
      if (RESTART_KEYS.some((key) => event.affectsConfiguration(key))) {
        launchedWith = launchInputs(servers.scope?.uri);
        void servers.restart();
      }
    }),
    // Trust also un-hides the workspace values of restricted settings (interpreter, path, ...).
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (!restartIfLaunchChanged()) {
        void servers.sendSettings();
      }
    }),
  );
  void onDidChangePythonEnvironment(() => {
    const config = vscode.workspace.getConfiguration(SECTION, servers.scope?.uri);
    if (config.get<string[]>("interpreter", []).length === 0 && config.get<string[]>("path", []).length === 0) {
      log.info("the Python extension's environment changed: restarting the server");
      void servers.restart();
    }
  }).then((listener) => listener && context.subscriptions.push(listener));

  const started = servers.restart();
  return { manager: servers, status, started };
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
  manager = undefined;
}
