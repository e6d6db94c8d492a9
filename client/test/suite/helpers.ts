import * as assert from "node:assert";
import * as vscode from "vscode";
import type { AutogradLintApi } from "../../src/extension";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(100);
  }
}

/** Like waitFor, for a probe that must ask something asynchronously. */
export async function waitForAsync(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) {
      assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(100);
  }
}

export async function activeApi(): Promise<AutogradLintApi> {
  const extension = vscode.extensions.getExtension<AutogradLintApi>("autograd-lint.autograd-lint");
  assert.ok(extension, "the extension is installed in the extension host");
  const api = extension.isActive ? extension.exports : await extension.activate();
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`the server did not start within 30 s: ${api.status.text}`)), 30_000),
  );
  await Promise.race([api.started, timeout]);
  return api;
}

/** The buggy sample of the workspace (samples/ when it has it, else our own fixture). */
export function buggySample(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, "a workspace folder is open");
  return vscode.Uri.joinPath(folder.uri, process.env.AGL_SAMPLE ?? "ag001_rnn_hidden_buggy.py");
}

export function ours(uri: vscode.Uri, code?: string): vscode.Diagnostic[] {
  return vscode.languages
    .getDiagnostics(uri)
    .filter((d) => d.source === "autograd-lint" && (!code || codeOf(d) === code));
}

export function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  return String(typeof code === "object" ? code.value : code ?? "");
}

/** The position of `needle` in `document` (first occurrence), pointing into it by `offset`. */
export function positionOf(document: vscode.TextDocument, needle: string, offset = 0): vscode.Position {
  const index = document.getText().indexOf(needle);
  assert.ok(index >= 0, `${needle} occurs in ${document.uri.path}`);
  return document.positionAt(index + offset);
}

/** Sets a setting in the workspace and returns a function that puts it back. */
export async function withSetting(key: string, value: unknown): Promise<() => Thenable<void>> {
  const config = vscode.workspace.getConfiguration("autograd-lint");
  const before = config.inspect(key)?.workspaceValue;
  await config.update(key, value, vscode.ConfigurationTarget.Workspace);
  return () => vscode.workspace.getConfiguration("autograd-lint").update(key, before, vscode.ConfigurationTarget.Workspace);
}
