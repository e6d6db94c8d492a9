// Plain-node tests (no VS Code): the status bar's short paths.
import * as assert from "node:assert";
import { shortDescription, shortPath } from "../../src/display";

suite("short paths for the status bar", () => {
  test("home becomes ~, a short path stays whole", () => {
    assert.strictEqual(shortPath("/home/ada/.venv/bin/python", "/home/ada"), "~/.venv/bin/python");
    assert.strictEqual(shortPath("/usr/bin/python3", "/home/ada"), "/usr/bin/python3");
  });

  test("a long path keeps its last three parts", () => {
    const venv = "/home/ada/.vscode-server/data/User/globalStorage/autograd-lint/venv/bin/python";
    assert.strictEqual(shortPath(venv, "/home/ada"), "…/venv/bin/python");
    assert.strictEqual(shortPath("C:\\Users\\ada\\AppData\\Roaming\\Code\\venv\\Scripts\\python.exe", undefined),
      "…\\venv\\Scripts\\python.exe");
  });

  test("descriptions keep their words", () => {
    const description = "autograd-lint 0.1.0 from /home/ada/projects/deep/nets/research/.venv/bin/python";
    assert.strictEqual(shortDescription(description, "/home/ada"), "autograd-lint 0.1.0 from …/.venv/bin/python");
    assert.strictEqual(shortDescription("bundled server in /tmp/v", undefined), "bundled server in /tmp/v");
  });
});
