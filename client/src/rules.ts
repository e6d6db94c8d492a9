// The rules as the running server describes them. The server's initialize result carries
// its rule registry (`capabilities.experimental.autogradLint.rules`), so no title or
// confirmable code is copied into the client, and the ones shown always belong to the
// server that reports the findings (which may be older or newer than the extension).
import type { LanguageClient } from "vscode-languageclient/node";

export interface RuleInfo {
  code: string;
  name: string;
  title: string;
  severity: string;
  confirmable: boolean;
  docs: string;
}

function isRule(value: unknown): value is RuleInfo {
  const rule = value as Partial<RuleInfo> | null;
  return typeof rule?.code === "string" && typeof rule.title === "string" && typeof rule.confirmable === "boolean";
}

/** The server's rules; undefined when no server runs or it does not describe them. */
export function serverRules(client: LanguageClient | undefined): RuleInfo[] | undefined {
  const experimental = client?.initializeResult?.capabilities.experimental as
    | { autogradLint?: { rules?: unknown } }
    | undefined;
  const rules = experimental?.autogradLint?.rules;
  return Array.isArray(rules) ? rules.filter(isRule) : undefined;
}

/** The codes whose findings runtime confirmation can check, as the server says. */
export function confirmableCodes(client: LanguageClient | undefined): ReadonlySet<string> | undefined {
  const rules = serverRules(client);
  return rules && new Set(rules.filter((rule) => rule.confirmable).map((rule) => rule.code));
}

/** "AG001, AG002 or AG007" */
export function listCodes(codes: Iterable<string>): string {
  const sorted = [...codes].sort();
  return sorted.length > 1 ? `${sorted.slice(0, -1).join(", ")} or ${sorted[sorted.length - 1]}` : sorted.join("");
}
