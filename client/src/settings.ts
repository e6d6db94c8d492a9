// The `autograd-lint` settings as the server reads them (initializationOptions,
// workspace/didChangeConfiguration and workspace/configuration all carry this shape).
import * as vscode from "vscode";

export const SECTION = "autograd-lint";

/** Settings whose change needs a new server process rather than a notification. */
export const RESTART_KEYS = ["interpreter", "path", "importStrategy"].map((key) => `${SECTION}.${key}`);

// The editor offers VS Code's severity names; the server speaks pyproject.toml's.
const SEVERITY_FOR_SERVER: Record<string, string> = { information: "info" };

export interface ServerSettings {
  enable: boolean;
  select: string[] | null;
  ignore: string[] | null;
  severity: Record<string, string>;
  trace: string;
  runtime: {
    enabled: boolean;
    device: string;
    python: string | null;
    args: string[];
    maxSteps: number;
    timeoutSeconds: number;
    warm: boolean;
  };
  /** Whether VS Code trusts the workspace: the server must not run code when it does not. */
  workspaceTrusted: boolean;
  /** The interpreter the editor reports, for runtime confirmation when runtime.python is empty. */
  interpreter: string[];
  /** The interpreter whose installed libraries imports resolve into; null: `interpreter`. */
  python: string | null;
  /** "workspace": the folder's files are checked whether they are open or not. */
  diagnosticMode: string;
}

/**
 * Converts a raw `autograd-lint` configuration object into what the server reads. Empty
 * select/ignore lists become null so that pyproject.toml's own lists apply.
 */
export function toServerSettings(raw: Record<string, unknown>, trusted: boolean, interpreter: string[]): ServerSettings {
  const get = <T>(key: string, fallback: T): T => (raw[key] as T | undefined) ?? fallback;
  const runtime = get<Record<string, unknown>>("runtime", {});
  const codes = (key: string) => {
    const list = get<string[]>(key, []);
    return list.length > 0 ? list : null;
  };
  const severity = Object.fromEntries(
    Object.entries(get<Record<string, string>>("severity", {})).map(([code, level]) => [
      code,
      SEVERITY_FOR_SERVER[level] ?? level,
    ]),
  );
  return {
    enable: get("enable", true),
    select: codes("select"),
    ignore: codes("ignore"),
    severity,
    trace: get<{ server?: string }>("trace", {}).server ?? "off",
    runtime: {
      enabled: (runtime.enabled as boolean | undefined) ?? false,
      device: (runtime.device as string | undefined) ?? "auto",
      python: (runtime.python as string | undefined) || null,
      args: (runtime.args as string[] | undefined) ?? [],
      maxSteps: (runtime.maxSteps as number | undefined) ?? 5,
      timeoutSeconds: (runtime.timeoutSeconds as number | undefined) ?? 120,
      warm: (runtime.warm as boolean | undefined) ?? true,
    },
    workspaceTrusted: trusted,
    interpreter,
    python: get<string | null>("python", null) || null,
    diagnosticMode: get("diagnosticMode", "openFilesOnly"),
  };
}

export function readSettings(scope: vscode.Uri | undefined, interpreter: string[]): ServerSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  // get() of the section's first-level keys returns nested objects for dotted settings
  // (`runtime.enabled` -> runtime: {enabled}), which is the shape the server wants.
  const raw: Record<string, unknown> = {};
  for (const key of ["enable", "select", "ignore", "severity", "trace", "runtime", "python"]) {
    raw[key] = config.get(key);
  }
  return toServerSettings(raw, vscode.workspace.isTrusted, interpreter);
}

/** What decides which server process runs; a change of it means a restart. */
export function launchInputs(scope: vscode.Uri | undefined): string {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return JSON.stringify(["interpreter", "path", "importStrategy"].map((key) => config.get(key)));
}
