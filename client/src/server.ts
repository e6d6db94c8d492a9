// Starting, restarting and configuring the language server process.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
} from "vscode-languageclient/node";
import { BundledServer } from "./bundledServer";
import { shortDescription } from "./display";
import { BOOT_FROM_LIBS, expandPath, findInterpreter, type Interpreter, probeServer, supportsVenv } from "./python";
import { withCleanExitsAsInfo } from "./quietLog";
import { readSettings, SECTION } from "./settings";
import type { StatusItem } from "./status";
import { isCompatible, seriesLabel } from "./version";

export interface Launch {
  command: string;
  args: string[];
  /** For the status item and the logs: what runs, and why this one. */
  description: string;
  /** The interpreter the editor reports, sent to the server for runtime confirmation. */
  interpreter: string[];
}

type Middleware = NonNullable<LanguageClientOptions["middleware"]>;

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private launch: Launch | undefined;
  /** Restarts are queued so that two setting changes in a row cannot start two servers. */
  private queue: Promise<void> = Promise.resolve();
  private installPrompt: Promise<boolean> | undefined;
  private readonly serverCommandsChanged = new vscode.EventEmitter<ReadonlySet<string> | undefined>();
  /**
   * Fires with the commands the running server executes (empty when none runs), and with
   * undefined just before a server starts, when they are not known yet.
   */
  readonly onDidChangeServerCommands = this.serverCommandsChanged.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly status: StatusItem,
    private readonly bundled: BundledServer,
    private readonly middleware: Middleware,
  ) {}

  get languageClient(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  get currentLaunch(): Launch | undefined {
    return this.launch;
  }

  /** The folder whose settings choose the server (one server serves every folder). */
  get scope(): vscode.WorkspaceFolder | undefined {
    const active = vscode.window.activeTextEditor?.document.uri;
    return (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
  }

  restart(): Promise<void> {
    this.queue = this.queue.then(() => this.stopNow()).then(() => this.startNow());
    return this.queue;
  }

  stop(): Promise<void> {
    this.queue = this.queue.then(() => this.stopNow());
    return this.queue;
  }

  /** Sends the current settings to the running server. */
  async sendSettings(): Promise<void> {
    const client = this.languageClient;
    if (!client) {
      return;
    }
    try {
      await client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { [SECTION]: this.settings(this.scope?.uri) },
      });
    } catch (error) {
      // A server going down for a restart gets the settings when it starts again.
      this.log.debug(`settings not sent: ${String(error)}`);
    }
  }

  settings(scope: vscode.Uri | undefined) {
    return readSettings(scope, this.launch?.interpreter ?? []);
  }

  private async startNow(): Promise<void> {
    this.status.show({ kind: "starting", detail: "looking for the language server" });
    let launch: Launch | undefined;
    try {
      launch = await this.resolveLaunch();
    } catch (error) {
      this.log.error(`could not find the server: ${String(error)}`);
    }
    if (!launch) {
      this.launch = undefined;
      this.serverCommandsChanged.fire(new Set());
      return;
    }
    this.launch = launch;
    // Debug: a healthy start logs one info line, once the server answers (below).
    this.log.debug(`starting ${launch.command} ${launch.args.join(" ")} (${launch.description})`);
    this.status.show({ kind: "starting", detail: shortDescription(launch.description, os.homedir()) });
    const serverOptions: ServerOptions = {
      command: launch.command,
      args: launch.args,
      // No `transport`: with TransportKind.stdio the client would append `--stdio`.
      options: { cwd: this.scope?.uri.fsPath, env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
        // Python cells of any notebook: the client then syncs them with the server's
        // notebookDocumentSync (the whole notebook, as one program), not cell by cell.
        { notebook: "*", language: "python" },
      ],
      // A requested restart must not read as "[Error] Server process exited with code 0".
      outputChannel: withCleanExitsAsInfo(this.log),
      traceOutputChannel: this.log,
      initializationOptions: { [SECTION]: this.settings(this.scope?.uri) },
      middleware: this.middleware,
    };
    const client = new LanguageClient(SECTION, "autograd-lint", serverOptions, clientOptions);
    this.serverCommandsChanged.fire(undefined);
    client.onDidChangeState(({ newState }) => {
      if (newState === State.Stopped && this.client === client) {
        this.status.show({ kind: "stopped", detail: "the language server stopped; click to restart" });
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.log.error(
        `the language server did not start (${launch.command} ${launch.args.join(" ")}, ${launch.description}): ${String(error)}`,
      );
      this.client = undefined;
      await disposeQuietly(client);
      this.status.show({ kind: "error", detail: "the language server did not start; click for the logs" });
      this.serverCommandsChanged.fire(new Set());
      void this.offerLogs("autograd-lint: the language server did not start.");
      return;
    }
    const info = client.initializeResult?.serverInfo;
    const running = `${info?.name ?? "server"} ${info?.version ?? ""}`.trim();
    // One line for a healthy start: what runs, and from where (the full path, in the log).
    this.log.info(`${running} is running (${launch.description})`);
    this.status.show({ kind: "running", detail: `${running} · ${shortDescription(launch.description, os.homedir())}` });
    this.serverCommandsChanged.fire(new Set(client.initializeResult?.capabilities.executeCommandProvider?.commands));
  }

  private async stopNow(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      await disposeQuietly(client, (error) => this.log.warn(`stopping the server: ${String(error)}`));
    }
  }

  private async resolveLaunch(): Promise<Launch | undefined> {
    const folder = this.scope;
    const config = vscode.workspace.getConfiguration(SECTION, folder?.uri);
    const executable = this.configuredExecutable(config.get<string[]>("path", []), folder);
    const interpreter = await findInterpreter(folder);
    if (executable) {
      return { command: executable, args: ["lsp"], description: executable, interpreter: interpreter.command };
    }
    if (config.get<string>("importStrategy") === "useBundled") {
      return this.bundledLaunch(interpreter, false);
    }
    const probe = await probeServer(interpreter.command);
    const minimum = this.minimumServerVersion();
    if (probe.kind === "found" && isCompatible(probe.version, minimum)) {
      return this.pythonLaunch(interpreter.command, `autograd-lint ${probe.version} from ${probe.executable}`, interpreter);
    }
    const reason =
      probe.kind === "found"
        ? `${probe.executable} has autograd-lint ${probe.version}, but this extension needs ${seriesLabel(minimum)}`
        : probe.detail;
    // Not a problem by itself: the private environment serves instead (the status item says
    // so when it cannot); the info line of the start names where the server runs from.
    this.log.debug(`${reason} (interpreter from ${interpreter.source}); using the private environment`);
    return this.bundledLaunch(interpreter, true, reason);
  }

  private configuredExecutable(paths: string[], folder: vscode.WorkspaceFolder | undefined): string | undefined {
    for (const candidate of paths.map((entry) => expandPath(entry, folder))) {
      if (!candidate.includes(path.sep) || fs.existsSync(candidate)) {
        return candidate;
      }
      this.log.warn(`autograd-lint.path: ${candidate} does not exist`);
    }
    return undefined;
  }

  private pythonLaunch(command: string[], description: string, interpreter: Interpreter): Launch {
    const [executable, ...prefix] = command;
    return {
      command: executable,
      // The server's own entry point: it does not import the CLI (or anything heavy).
      args: [...prefix, "-m", "autograd_lint.lsp"],
      description,
      interpreter: interpreter.command,
    };
  }

  /**
   * The server that ships with the extension: the private environment when one was installed
   * (it has libcst from the index), else bundled/libs run with the user's interpreter (no
   * download, no prompt), else, with `ask`, the offer to install the private environment.
   */
  private async bundledLaunch(interpreter: Interpreter, ask: boolean, reason?: string): Promise<Launch | undefined> {
    const minimum = this.minimumServerVersion();
    const privateReady = async () => {
      if (!this.bundled.exists()) {
        return false;
      }
      const probe = await probeServer([this.bundled.python]);
      return probe.kind === "found" && isCompatible(probe.version, minimum);
    };
    if (await privateReady()) {
      return this.pythonLaunch([this.bundled.python], `bundled server in ${this.bundled.venvDir}`, interpreter);
    }
    const libs = this.bundled.libs();
    if (libs) {
      const probe = await probeServer(interpreter.command, libs);
      if (probe.kind === "found" && isCompatible(probe.version, minimum) && atLeast310(probe.python)) {
        const [executable, ...prefix] = interpreter.command;
        // The fixes' rewriter is compiled per platform: the universal VSIX has none.
        const fixes = probe.libcst ? "" : "; quick fixes: only Ignore, without libcst";
        return {
          command: executable,
          args: [...prefix, "-c", BOOT_FROM_LIBS, libs],
          description: `bundled server ${probe.version} with ${probe.executable}${fixes}`,
          interpreter: interpreter.command,
        };
      }
      const why = probe.kind === "found" ? `Python ${probe.python.join(".")} is older than 3.10` : probe.detail;
      this.log.warn(`the bundled server cannot run with ${interpreter.command.join(" ")}: ${why}`);
      reason = reason ? `${reason}; the bundled server needs Python 3.10 or newer` : reason;
    }
    const yes = !ask || (await this.askToInstall(reason ?? ""));
    if (yes && (await this.installInto(interpreter)) && (await privateReady())) {
      return this.pythonLaunch([this.bundled.python], `bundled server in ${this.bundled.venvDir}`, interpreter);
    }
    this.status.show({
      kind: "error",
      detail: "the language server is not installed; click to install it",
      command: { title: "Install", command: "autograd-lint.installServer" },
    });
    return undefined;
  }

  async installInto(interpreter: Interpreter): Promise<boolean> {
    if (!(await supportsVenv(interpreter.command))) {
      void vscode.window.showErrorMessage(
        `autograd-lint needs Python 3.10 or newer to install its server; ${interpreter.command.join(" ")} is not. ` +
          "Set `autograd-lint.interpreter` to a newer Python.",
      );
      return false;
    }
    return this.bundled.install(interpreter.command);
  }

  private askToInstall(reason: string): Promise<boolean> {
    this.installPrompt ??= (async () => {
      const install = "Install";
      const choice = await vscode.window.showWarningMessage(
        `autograd-lint: ${reason}. Install the language server into a private environment for this extension? ` +
          "(It downloads pygls, lsprotocol and libcst from the package index.)",
        install,
        "Not Now",
      );
      this.installPrompt = undefined;
      return choice === install;
    })();
    return this.installPrompt;
  }

  private minimumServerVersion(): string {
    return (this.context.extension.packageJSON as { version: string }).version;
  }

  private async offerLogs(message: string): Promise<void> {
    if ((await vscode.window.showErrorMessage(message, "Show Logs")) === "Show Logs") {
      this.log.show();
    }
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.serverCommandsChanged.dispose();
  }
}

function atLeast310([major, minor]: [number, number]): boolean {
  return major > 3 || (major === 3 && minor >= 10);
}

/** Stops and disposes `client`, which may be in any state (a failed start included). */
async function disposeQuietly(client: LanguageClient, onError?: (error: unknown) => void): Promise<void> {
  try {
    if (client.isRunning()) {
      await client.stop(5000);
    }
    await client.dispose();
  } catch (error) {
    onError?.(error);
  }
}
