// The server that ships inside the VSIX, two ways: bundled/libs (the server and its
// pure-Python dependencies, run with the user's interpreter: no download, no prompt), and
// the private environment, a venv in the extension's global storage with the server wheel
// (bundled/*.whl) whose dependencies come from the package index (libcst included, for the
// quick fixes on a platform whose VSIX has none).
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { looksOffline, runProcess } from "./process";

export class BundledServer {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get venvDir(): string {
    return path.join(this.context.globalStorageUri.fsPath, "server-venv");
  }

  get python(): string {
    return process.platform === "win32"
      ? path.join(this.venvDir, "Scripts", "python.exe")
      : path.join(this.venvDir, "bin", "python");
  }

  exists(): boolean {
    return fs.existsSync(this.python);
  }

  /** bundled/libs, when this build of the extension has it (client/scripts/bundle-libs.mjs). */
  libs(): string | undefined {
    const dir = this.context.asAbsolutePath(path.join("bundled", "libs"));
    return fs.existsSync(path.join(dir, "autograd_lint", "__init__.py")) ? dir : undefined;
  }

  wheel(): string | undefined {
    const dir = this.context.asAbsolutePath("bundled");
    const wheels = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith(".whl")) : [];
    return wheels.length > 0 ? path.join(dir, wheels.sort().at(-1) as string) : undefined;
  }

  /**
   * Creates (or refreshes) the environment with `baseInterpreter`, showing progress.
   * Resolves to true on success; on failure shows one error that says what to do.
   */
  async install(baseInterpreter: string[]): Promise<boolean> {
    const wheel = this.wheel();
    if (!wheel) {
      void vscode.window.showErrorMessage(
        "autograd-lint: this build of the extension has no bundled server wheel. Install the server with `pip install autograd-lint` and set `autograd-lint.interpreter`.",
      );
      return false;
    }
    const outcome = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "autograd-lint", cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        const step = async (message: string, command: string, args: string[]) => {
          progress.report({ message });
          this.log.info(`${message}: ${command} ${args.join(" ")}`);
          const result = await runProcess(command, args, {
            timeoutMs: 10 * 60_000,
            signal: abort.signal,
            onLine: (line) => this.log.info(`  ${line}`),
          });
          return { ...result, ok: result.code === 0 && !result.spawnError };
        };
        fs.mkdirSync(this.context.globalStorageUri.fsPath, { recursive: true });
        const [base, ...baseArgs] = baseInterpreter;
        if (!this.exists()) {
          const created = await step("creating a private Python environment", base, [...baseArgs, "-m", "venv", this.venvDir]);
          if (!created.ok) {
            return { ok: false, cancelled: token.isCancellationRequested, output: created.stderr, stage: "venv" };
          }
        }
        const installed = await step("installing the language server and its dependencies", this.python, [
          "-m",
          "pip",
          "install",
          "--disable-pip-version-check",
          "--upgrade",
          wheel,
        ]);
        return {
          ok: installed.ok,
          cancelled: token.isCancellationRequested,
          output: installed.stdout + installed.stderr,
          stage: "pip",
        };
      },
    );
    if (outcome.ok) {
      this.log.info(`installed ${path.basename(wheel)} into ${this.venvDir}`);
      return true;
    }
    if (outcome.cancelled) {
      this.log.warn("installing the server was cancelled");
      return false;
    }
    void this.reportFailure(outcome.stage, outcome.output);
    return false;
  }

  private async reportFailure(stage: string, output: string): Promise<void> {
    let message: string;
    if (stage === "venv") {
      message =
        "autograd-lint could not create a Python virtual environment (on Debian/Ubuntu: `apt install python3-venv`).";
    } else if (looksOffline(output)) {
      message =
        "autograd-lint could not download its dependencies (pygls, lsprotocol, libcst) from the package index: " +
        "you seem to be offline or behind a proxy (pip's own configuration applies). " +
        "Connect and retry, or install the server yourself with `pip install autograd-lint` and set `autograd-lint.interpreter`.";
    } else {
      message = "autograd-lint could not install its language server; pip's output is in the log.";
    }
    this.log.error(message);
    const choice = await vscode.window.showErrorMessage(message, "Show Logs", "Retry");
    if (choice === "Show Logs") {
      this.log.show();
    } else if (choice === "Retry") {
      await vscode.commands.executeCommand("autograd-lint.installServer");
    }
  }
}
