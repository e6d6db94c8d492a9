// Finding the Python interpreter that runs the server, and asking it which autograd_lint it has.
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { runProcess } from "./process";

export interface Interpreter {
  /** The command (an executable, maybe followed by arguments such as `-X utf8`). */
  command: string[];
  /** Where it came from, for the logs and the status item. */
  source: "setting" | "python extension" | "PATH";
}

/** The parts of the Python extension's public API (ms-python.python) used here. */
interface PythonExtensionApi {
  environments: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(env: { path: string }): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

const PYTHON_EXTENSION = "ms-python.python";

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    return api?.environments ? api : undefined;
  } catch {
    return undefined;
  }
}

/** Fires when the Python extension's selected environment changes (if it is installed). */
export async function onDidChangePythonEnvironment(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi();
  return api?.environments.onDidChangeActiveEnvironmentPath(listener);
}

/** `${workspaceFolder}`, `${userHome}` and a leading `~` in a setting value. */
export function expandPath(value: string, folder?: vscode.WorkspaceFolder): string {
  let result = value.replace(/\$\{userHome\}/g, os.homedir());
  if (folder) {
    result = result.replace(/\$\{workspaceFolder\}/g, folder.uri.fsPath);
  }
  if (result === "~" || result.startsWith("~/")) {
    result = path.join(os.homedir(), result.slice(1));
  }
  return result;
}

export async function findInterpreter(folder?: vscode.WorkspaceFolder): Promise<Interpreter> {
  const configured = vscode.workspace
    .getConfiguration("autograd-lint", folder?.uri)
    .get<string[]>("interpreter", [])
    .filter((part) => part.trim());
  if (configured.length > 0) {
    return { command: configured.map((part) => expandPath(part, folder)), source: "setting" };
  }
  const api = await pythonExtensionApi();
  if (api) {
    try {
      const active = api.environments.getActiveEnvironmentPath(folder?.uri);
      const resolved = await api.environments.resolveEnvironment(active);
      const executable = resolved?.executable.uri?.fsPath;
      if (executable) {
        return { command: [executable], source: "python extension" };
      }
    } catch {
      // an environment that cannot be resolved: fall back to PATH
    }
  }
  return { command: [process.platform === "win32" ? "python" : "python3"], source: "PATH" };
}

export type ServerProbe =
  | { kind: "found"; version: string; executable: string }
  | { kind: "missing"; detail: string }
  | { kind: "no-python"; detail: string };

// One line of JSON, so that whatever a sitecustomize prints cannot be mistaken for the answer.
const PROBE = [
  "import json, sys",
  "out = {'python': list(sys.version_info[:2]), 'executable': sys.executable}",
  "try:",
  "    import autograd_lint",
  "    out['version'] = autograd_lint.__version__",
  "except Exception as error:",
  "    out['error'] = f'{type(error).__name__}: {error}'",
  "print('AUTOGRAD_LINT_PROBE ' + json.dumps(out))",
].join("\n");

export async function probeServer(interpreter: string[]): Promise<ServerProbe> {
  const [command, ...args] = interpreter;
  const result = await runProcess(command, [...args, "-c", PROBE], { timeoutMs: 20_000 });
  if (result.spawnError) {
    return { kind: "no-python", detail: `${command}: ${result.spawnError.message}` };
  }
  const line = result.stdout.split(/\r?\n/).find((text) => text.startsWith("AUTOGRAD_LINT_PROBE "));
  if (!line) {
    return { kind: "no-python", detail: `${command} exited with ${result.code}: ${result.stderr.trim()}` };
  }
  const answer = JSON.parse(line.slice("AUTOGRAD_LINT_PROBE ".length)) as {
    python: [number, number];
    executable: string;
    version?: string;
    error?: string;
  };
  if (answer.version !== undefined) {
    return { kind: "found", version: answer.version, executable: answer.executable };
  }
  return { kind: "missing", detail: `${answer.executable} cannot import autograd_lint (${answer.error})` };
}

/** Whether `interpreter` can create the private environment (Python 3.10 or newer). */
export async function supportsVenv(interpreter: string[]): Promise<boolean> {
  const [command, ...args] = interpreter;
  const result = await runProcess(command, [...args, "-c", "import sys, venv; sys.exit(sys.version_info < (3, 10))"], {
    timeoutMs: 20_000,
  });
  return result.code === 0;
}
