// Plain-node tests (no VS Code): a clean server exit is not logged as an error.
import * as assert from "node:assert";
import { withCleanExitsAsInfo } from "../../src/quietLog";

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    name: "autograd-lint",
    appendLine: (text: string) => lines.push(text),
    append: (text: string) => lines.push(`append ${text}`),
  };
}

suite("clean server exits in the log", () => {
  test("exit code 0 is an info line; other exits and errors stay errors", () => {
    const channel = recorder();
    const log = withCleanExitsAsInfo(channel);
    // What vscode-languageclient 9 writes (client.js logOutputMessage, `name.padEnd(5)`).
    log.appendLine("[Error - 10:42:01] Server process exited with code 0.");
    log.appendLine("[Error - 10:42:02] Server process exited with code 1.");
    log.appendLine("[Error - 10:42:03] Server process exited with signal SIGKILL.");
    log.appendLine("[Error - 10:42:04] Connection to server got closed.");
    assert.deepStrictEqual(channel.lines, [
      "[Info  - 10:42:01] Server process exited with code 0.",
      "[Error - 10:42:02] Server process exited with code 1.",
      "[Error - 10:42:03] Server process exited with signal SIGKILL.",
      "[Error - 10:42:04] Connection to server got closed.",
    ]);
  });

  test("everything else passes through", () => {
    const channel = recorder();
    const log = withCleanExitsAsInfo(channel);
    log.append("stderr text");
    assert.strictEqual(log.name, "autograd-lint");
    assert.deepStrictEqual(channel.lines, ["append stderr text"]);
  });
});
