// The language client (vscode-languageclient 9) writes "[Error - 10:42:01] Server process
// exited with code 0." to its output channel whenever the server stops, a requested restart
// included. Exit code 0 is a clean exit (the server answered `shutdown` and `exit`): that
// line is written as an Info line instead. Every other line, and any other exit code or a
// signal, stays as it was.

interface Channel {
  appendLine(value: string): void;
}

const CLEAN_EXIT = /^\[Error(\s*- [^\]]*\] Server process exited with code 0\.)$/;

export function withCleanExitsAsInfo<T extends Channel>(channel: T): T {
  return new Proxy(channel, {
    get(target, property) {
      if (property === "appendLine") {
        return (value: string) => target.appendLine(value.replace(CLEAN_EXIT, "[Info $1"));
      }
      // The target itself as `this`: VS Code's channels keep private state.
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
