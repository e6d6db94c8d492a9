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
  | { kind: "found"; version: string; executable: string; python: [number, number]; libcst: boolean }
  | { kind: "missing"; detail: string }
  | { kind: "no-python"; detail: string };

// One line of JSON, so that whatever a sitecustomize prints cannot be mistaken for the answer.
// With an argument (the extension's bundled/libs), that folder comes first on sys.path, as
// it does for the server started from it (BOOT_FROM_LIBS). The server's dependencies are
// looked up, not imported (a second of CPU on a loaded machine).
const PROBE = [
  "import importlib.util, json, sys",
  "libs = sys.argv[1:]",
  "sys.path[0:0] = libs",
  "out = {'python': list(sys.version_info[:2]), 'executable': sys.executable}",
  "try:",
  "    import autograd_lint",
  "    missing = [name for name in ('pygls', 'lsprotocol') if importlib.util.find_spec(name) is None]",
  "    if missing:",
  "        raise ImportError('no ' + ', '.join(missing))",
  "    out['version'] = autograd_lint.__version__",
  "    out['libcst'] = importlib.util.find_spec('libcst') is not None",
  "except Exception as error:",
  "    out['error'] = f'{type(error).__name__}: {error}'",
  "print('AUTOGRAD_LINT_PROBE ' + json.dumps(out))",
].join("\n");

/**
 * `python -c BOOT_FROM_LIBS LIBS`: the language server from the bundled libraries, without
 * PYTHONPATH (which would reach the scripts that runtime confirmation runs).
 */
export const BOOT_FROM_LIBS =
  "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); " +
  "runpy.run_module('autograd_lint.lsp', run_name='__main__', alter_sys=True)";

export async function probeServer(interpreter: string[], libs?: string): Promise<ServerProbe> {
  const [command, ...args] = interpreter;
  const result = await runProcess(command, [...args, "-c", PROBE, ...(libs ? [libs] : [])], { timeoutMs: 60_000 });
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
    libcst?: boolean;
    error?: string;
  };
  if (answer.version !== undefined) {
    return {
      kind: "found",
      version: answer.version,
      executable: answer.executable,
      python: answer.python,
      libcst: answer.libcst === true,
    };
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
