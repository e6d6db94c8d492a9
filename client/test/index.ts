// Entry point of the extension-host tests: VS Code calls run() inside the real extension host
// (the contract @vscode/test-electron uses; here code-server's smoke-test driver loads it).
import * as fs from "node:fs";
import * as path from "node:path";
import Mocha from "mocha";

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 60_000 });
  const suites = path.join(__dirname, "suite");
  for (const file of fs.readdirSync(suites).filter((name) => name.endsWith(".test.js")).sort()) {
    mocha.addFile(path.join(suites, file));
  }
  return new Promise((resolve, reject) =>
    mocha.run((failures) => (failures ? reject(new Error(`${failures} test(s) failed`)) : resolve())),
  );
}
