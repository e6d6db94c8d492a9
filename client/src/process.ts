// Running short helper processes (probing an interpreter, creating a venv, pip) with their
// output streamed to the log. Kept free of `vscode` so unit tests run in plain node.
import { spawn } from "node:child_process";

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the process could not be started at all (ENOENT, EACCES). */
  spawnError?: Error;
}

export interface RunOptions {
  cwd?: string;
  timeoutMs?: number;
  onLine?: (line: string) => void;
  signal?: AbortSignal;
}

export function runProcess(command: string, args: string[], options: RunOptions = {}): Promise<ProcessResult> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    const finish = (result: ProcessResult) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(result);
      }
    };
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, PYTHONIOENCODING: "utf-8", PIP_NO_INPUT: "1" },
      signal: options.signal,
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
    const forward = (chunk: Buffer, sink: "out" | "err") => {
      const text = chunk.toString("utf8");
      if (sink === "out") {
        stdout += text;
      } else {
        stderr += text;
      }
      if (options.onLine) {
        for (const line of text.split(/\r?\n/)) {
          if (line.trim()) {
            options.onLine(line);
          }
        }
      }
    };
    child.stdout.on("data", (chunk: Buffer) => forward(chunk, "out"));
    child.stderr.on("data", (chunk: Buffer) => forward(chunk, "err"));
    child.on("error", (error) => finish({ code: null, stdout, stderr, spawnError: error }));
    child.on("close", (code) => finish({ code, stdout, stderr }));
  });
}

// What pip prints when the package index cannot be reached (no network, DNS, proxy).
const OFFLINE_SIGNS = [
  "Failed to establish a new connection",
  "Temporary failure in name resolution",
  "Name or service not known",
  "Network is unreachable",
  "No matching distribution found",
  "Could not find a version that satisfies",
  "ProxyError",
  "ConnectTimeoutError",
  "ReadTimeoutError",
];

export function looksOffline(pipOutput: string): boolean {
  return OFFLINE_SIGNS.some((sign) => pipOutput.includes(sign));
}
