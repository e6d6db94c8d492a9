// Runs the mocha suites of out/test inside code-server's real extension host, with the
// extension loaded from the repository (extensionDevelopmentPath). code-server must run with
// `--vscode-option enable-smoke-test-driver`: without it the built workbench silently ignores
// the `payload` query. The tests' exit code comes back through window.codeAutomationExit.
// Env: CS_URL, WS_DIR, EXT_DEV, EXT_TESTS, CHROMIUM, VERBOSE (print every console line).
import { format } from "node:util";
import { launchBrowser, stopwatch } from "./browser.mjs";

const lap = stopwatch("exthost");
const { CS_URL, WS_DIR, EXT_DEV, EXT_TESTS } = process.env;
const remote = (path) => `vscode-remote://${new URL(CS_URL).host}${path}`;
// Workbench chatter that says nothing about our tests.
const NOISE =
  /Resolv|[Ss]ocket|grace time|iframe|builtin extensions cache|Service Worker|AgentHost|AccountPolicyGate|took \d+ms|authentication provider|open-vsx|gallery|Failed to load resource|vsda/;

const browser = await launchBrowser();
const page = await browser.newPage();
page.on("console", async (message) => {
  let args;
  try {
    args = await Promise.all(message.args().map((arg) => arg.jsonValue()));
  } catch {
    args = [message.text()];
  }
  // The extension host's console arrives as ("%c INFO", "color: ...", ...args).
  if (typeof args[0] === "string" && args[0].startsWith("%c") && String(args[1]).startsWith("color")) {
    args = args.slice(2);
  }
  const line = format(...args).replace(/\n\s*at .*/g, "").replace(/%c/g, "");
  if (process.env.VERBOSE || (line.trim() && !NOISE.test(line))) {
    console.log(`  | ${line}`);
  }
});
const exited = new Promise((resolve) => page.exposeFunction("codeAutomationExit", resolve));
const payload = JSON.stringify([
  ["extensionDevelopmentPath", remote(EXT_DEV)],
  ["extensionTestsPath", remote(EXT_TESTS)],
]);
await page.goto(`${CS_URL}/?folder=${encodeURIComponent(WS_DIR)}&payload=${encodeURIComponent(payload)}`);
const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve("timeout"), 240_000))]);
lap(`codeAutomationExit(${code})`);
await browser.close();
process.exit(code === 0 ? 0 : 1);
