// UI test of the installed VSIX in code-server's live workbench, as a user sees it, in one
// session: the folder opens untrusted (Restricted Mode): the squiggle is on the buggy backward()
// all the same, and the runtime command is refused; then the folder is trusted (the extension
// notices), the hover tells the story, the lightbulb fix removes the squiggle, and our
// settings are in the settings editor.
// Screenshots go to $SHOTS. Env: CS_URL, WS_DIR, SAMPLE, SHOTS, CHROMIUM.
// The CSS selectors are VS Code's DOM (1.139); the extension-host tests do not depend on them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openSession, openWorkbench } from "./browser.mjs";

const { CS_URL, WS_DIR, SAMPLE, SHOTS } = process.env;
const { lap, browser, page, shot } = await openSession("ui", SHOTS);

async function openSample() {
  await openWorkbench(page, lap, CS_URL, WS_DIR);
  const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: SAMPLE }).first();
  await row.click({ timeout: 60_000 });
  await page.waitForSelector(".editor-instance .monaco-editor .view-lines", { timeout: 30_000 });
  lap(`${SAMPLE} open`);
  // Scroll the buggy backward() into view (squiggles are drawn for visible lines only).
  const lines = readFileSync(join(WS_DIR, SAMPLE), "utf8").split("\n");
  const backwardLine = lines.findIndex((text) => text.includes("loss.backward()")) + 1;
  await page.keyboard.press("F1");
  await page.locator(".quick-input-widget input").fill(`:${backwardLine}`);
  await page.keyboard.press("Enter");
  const squiggle = page.locator(".monaco-editor .squiggly-error").first();
  await squiggle.waitFor({ timeout: 90_000 });
  const problems = await page.locator("#status\\.problems").innerText();
  lap(`error squiggle visible; status bar problems: ${JSON.stringify(problems)}`);
  return squiggle;
}

async function runCommand(title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ timeout: 10_000 });
  await input.fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press("Enter");
}

async function restrictedMode() {
  await page
    .locator("#status\\.workspaceTrust, .monaco-workbench")
    .filter({ hasText: "Restricted Mode" })
    .first()
    .waitFor({ timeout: 15_000 });
  lap("Restricted Mode, and the static squiggle is there all the same");
  await runCommand("autograd-lint: Confirm Finding at Runtime");
  await toast("refused in an untrusted folder");
  await shot("ui-untrusted");
  await page.keyboard.press("Escape");
}

async function grantTrust() {
  await runCommand("Workspaces: Manage Workspace Trust");
  const trust = page.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust$/ }).first();
  await trust.click({ timeout: 15_000 });
  await page.locator(".workspace-trust-editor", { hasText: "You trust this folder" }).first().waitFor({ timeout: 15_000 });
  lap("folder trusted");
  await runCommand("View: Close Editor"); // the trust editor
  await page.locator(".workspace-trust-editor").first().waitFor({ state: "hidden", timeout: 10_000 });
  await page.locator(".explorer-folders-view .monaco-list-row", { hasText: SAMPLE }).first().click();
  // The extension saw the grant: the runtime command now stops at the (off) setting instead.
  await page.locator(".view-line", { hasText: "loss.backward()" }).first().click();
  await runCommand("autograd-lint: Confirm Finding at Runtime");
  await toast("runtime confirmation is off");
}

async function toast(text) {
  const notification = page.locator(".notifications-toasts .notification-toast", { hasText: text }).first();
  await notification.waitFor({ state: "visible", timeout: 20_000 });
  lap(`notification: ${JSON.stringify((await notification.innerText()).replace(/\s+/g, " ").slice(0, 140))}`);
}

async function hoverAndFix(squiggle) {
  // The squiggle must sit on the backward() call.
  const line = page.locator(".view-line", { hasText: "loss.backward()" }).first();
  const [lineBox, squiggleBox] = [await line.boundingBox(), await squiggle.boundingBox()];
  if (Math.abs(lineBox.y - squiggleBox.y) > lineBox.height / 2) {
    throw new Error(`the squiggle (y=${squiggleBox.y}) is not on the backward() line (y=${lineBox.y})`);
  }
  const center = [squiggleBox.x + squiggleBox.width / 2, squiggleBox.y + squiggleBox.height / 2];
  await page.mouse.move(0, 0);
  await page.mouse.move(...center);
  const hover = page.locator(".monaco-hover", { hasText: "Trying to backward through the graph a second time" });
  await hover.first().waitFor({ state: "visible", timeout: 30_000 });
  const hoverText = await hover.first().innerText();
  if (!/hidden = hidden\.detach\(\)/.test(hoverText)) {
    throw new Error(`the hover does not give the fix: ${hoverText.slice(0, 300)}`);
  }
  lap(`hover: ${JSON.stringify(hoverText.slice(0, 100))}`);
  await shot("ui-hover");

  // The lightbulb: quick fixes at the squiggle (Ctrl+. opens the same menu).
  await page.mouse.click(...center);
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+.");
  const fix = page.locator(".action-widget .monaco-list-row", { hasText: /detach/i }).first();
  await fix.waitFor({ timeout: 15_000 });
  lap(`quick fix offered: ${JSON.stringify(await fix.innerText())}`);
  await fix.click();
  await page.locator(".monaco-editor .squiggly-error").first().waitFor({ state: "detached", timeout: 30_000 });
  await page.locator(".view-line", { hasText: "hidden = hidden.detach()" }).first().waitFor({ timeout: 5_000 });
  lap("the fix is in the editor and the squiggle is gone");
  await shot("ui-fixed");
}

async function settingsEditor() {
  await runCommand("Preferences: Open Settings (UI)");
  await page.locator(".settings-editor").first().waitFor({ timeout: 15_000 });
  await page.keyboard.type("@ext:autograd-lint.autograd-lint");
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  const count = Object.keys(manifest.contributes.configuration.properties).length;
  await page
    .locator(".settings-editor .settings-count-widget", { hasText: `${count} Settings Found` })
    .waitFor({ timeout: 15_000 });
  const setting = (label) => page.locator(".settings-editor .setting-item-contents", { hasText: label }).first();
  // The list renders only what fits on the screen: the first settings are checked as
  // listed, the later ones after narrowing the search to them.
  for (const label of ["Enable", "Select", "Severity"]) {
    await setting(label).waitFor({ timeout: 15_000 });
  }
  lap(`our ${count} settings are in the settings editor`);
  await shot("ui-settings");
  await page.keyboard.type(" interpreter");
  await setting("Interpreter").waitFor({ timeout: 15_000 });
  for (let i = 0; i < " interpreter".length; i++) await page.keyboard.press("Backspace");
  await page.keyboard.type(" runtime");
  await setting("Runtime: Enabled").waitFor({ timeout: 15_000 });
  await shot("ui-settings-runtime");
}

let ok = false;
try {
  const squiggle = await openSample();
  await restrictedMode();
  await grantTrust();
  await hoverAndFix(squiggle);
  await settingsEditor();
  ok = true;
} catch (error) {
  console.log(`ui error: ${error.message}`);
  await shot("ui-failure").catch(() => {});
} finally {
  await browser.close();
  lap(ok ? "PASS" : "FAIL");
  process.exit(ok ? 0 : 1);
}
