// The language status item next to "Python" in the status bar: server state, click for logs.
import * as vscode from "vscode";

export type ServerState =
  | { kind: "starting"; detail?: string }
  | { kind: "running"; detail: string }
  | { kind: "stopped"; detail: string }
  | { kind: "error"; detail: string; command?: vscode.Command };

export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;

  constructor() {
    this.item = vscode.languages.createLanguageStatusItem("autograd-lint.status", { language: "python" });
    this.item.name = "autograd-lint";
    this.show({ kind: "starting" });
  }

  show(state: ServerState): void {
    const logs: vscode.Command = { title: "Show Logs", command: "autograd-lint.showLogs" };
    this.item.busy = state.kind === "starting";
    this.item.severity =
      state.kind === "error" ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    switch (state.kind) {
      case "starting":
        this.item.text = "$(sync~spin) autograd-lint";
        this.item.detail = state.detail ?? "starting the language server";
        this.item.command = logs;
        break;
      case "running":
        this.item.text = "$(check) autograd-lint";
        this.item.detail = state.detail;
        this.item.command = logs;
        break;
      case "stopped":
        this.item.text = "$(circle-slash) autograd-lint";
        this.item.detail = state.detail;
        this.item.command = { title: "Restart", command: "autograd-lint.restart" };
        break;
      case "error":
        this.item.text = "$(error) autograd-lint";
        this.item.detail = state.detail;
        this.item.command = state.command ?? logs;
        break;
    }
    this.item.accessibilityInformation = { label: `autograd-lint: ${this.item.detail}` };
  }

  get text(): string {
    return `${this.item.text} — ${this.item.detail ?? ""}`;
  }

  dispose(): void {
    this.item.dispose();
  }
}
