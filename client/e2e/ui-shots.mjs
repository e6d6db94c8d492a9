// Screenshots of the installed VSIX for the docs and the issue tracker (not a CI session:
// `SESSIONS=shots scripts/vscode-e2e.sh test`): for one buggy sample per rule, the hover on
// the finding and its light-bulb menu. For each hover it measures what a user sees without
// scrolling: the box's height, and whether our **Fix:** line lies inside it. Fails when a
// finding's menu has no rewrite (only "Ignore"), or a hover's fix is out of sight.
// Writes $SHOTS/shot-<rule>-hover.png, shot-<rule>-quickfix.png and shots.json.
// Env: CS_URL, WS_DIR, SHOTS, PYTHON (finds the findings with the CLI).
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSession, openWorkbench } from "./browser.mjs";

const { CS_URL, WS_DIR, SHOTS, PYTHON } = process.env;
const CASES = [
  ["AG001", "ag001_rnn_hidden_buggy.py"],
  ["AG002", "ag002_gan_fake_buggy.py"],
  ["AG003", "ag003_running_loss_buggy.py"],
  ["AG004", "ag004_retain_every_step_buggy.py"],
  ["AG005", "ag005_zero_grad_after_backward_buggy.py"],
  ["AG006", "ag006_manual_sgd_buggy.py"],
  ["AG007", "ag007_clamp_probs_buggy.py"],
];
const { lap, browser, page, shot } = await openSession("ui-shots", SHOTS);

function finding(code, file) {
  const out = execFileSync(PYTHON, ["-c", "import sys; from autograd_lint.cli import main; sys.exit(main())", "check", "--exit-zero", "--format", "json", join(WS_DIR, file)]);
  const found = JSON.parse(out).findings.find((f) => f.code === code);
  if (!found) throw new Error(`${file}: no ${code}`);
  return found;
}

async function goTo(file, line) {
  await page.keyboard.press("Control+P");
  await page.locator(".quick-input-widget input").fill(file);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: file }).first().waitFor({ timeout: 60_000 });
  await page.keyboard.press("Enter");
  await page.waitForSelector(".editor-instance .monaco-editor .view-lines", { timeout: 30_000 });
  await page.keyboard.press("F1");
  await page.locator(".quick-input-widget input").fill(`:${line}`);
  await page.keyboard.press("Enter");
}

// What of the hover is visible without scrolling, and where the Fix line is in it.
async function measureHover(hover) {
  return hover.evaluate((node) => {
    const box = node.getBoundingClientRect();
    const scrollable = node.querySelector(".monaco-scrollable-element") ?? node;
    const view = scrollable.getBoundingClientRect();
    const fix = [...node.querySelectorAll("p, strong")].find((el) => el.textContent.startsWith("Fix:"));
    const fixBox = fix?.getBoundingClientRect();
    return {
      height: Math.round(box.height),
      fixTop: fixBox ? Math.round(fixBox.top - view.top) : null,
      fixVisible: Boolean(fixBox && fixBox.bottom <= view.bottom + 1 && fixBox.top >= view.top - 1),
    };
  });
}

async function one([code, file]) {
  const found = finding(code, file);
  const line = found.range.start.line;
  await goTo(file, line);
  const squiggle = page.locator(".monaco-editor .squiggly-error, .monaco-editor .squiggly-warning, .monaco-editor .squiggly-info").first();
  await squiggle.waitFor({ timeout: 60_000 });
  // Hover the squiggle on the finding's line (the cursor's line; a file may have others).
  const lineBox = await page.locator(".view-overlays .current-line").first().boundingBox();
  const target = await squiggle.boundingBox();
  const y = lineBox ? lineBox.y + lineBox.height / 2 : target.y + target.height / 2;
  const squiggles = await page.locator(".monaco-editor .squiggly-error, .monaco-editor .squiggly-warning, .monaco-editor .squiggly-info").all();
  let center = [target.x + target.width / 2, target.y + target.height / 2];
  for (const candidate of squiggles) {
    const box = await candidate.boundingBox();
    if (box && Math.abs(box.y + box.height / 2 - y) < 10) {
      center = [box.x + Math.min(box.width / 2, 40), box.y + box.height / 2];
      break;
    }
  }
  await page.mouse.move(0, 0);
  await page.mouse.move(...center);
  const hover = page.locator(".monaco-hover", { hasText: code }).first();
  await hover.waitFor({ state: "visible", timeout: 30_000 });
  await page.waitForTimeout(800); // the fix title comes with the language server's part
  const measured = await measureHover(hover);
  await shot(`shot-${code}-hover`);
  await page.mouse.click(...center);
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+.");
  const rows = page.locator(".action-widget .monaco-list-row");
  await rows.first().waitFor({ timeout: 15_000 });
  // Off the text, so that the hover fades out and the screenshot shows the menu alone.
  await page.mouse.move(center[0], 860);
  await page.waitForTimeout(1000);
  const offered = (await rows.allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim()).filter(Boolean);
  await shot(`shot-${code}-quickfix`);
  await page.keyboard.press("Escape");
  const result = { code, file, line, ...measured, offered };
  lap(JSON.stringify(result));
  return result;
}

let ok = false;
const results = [];
try {
  await openWorkbench(page, lap, CS_URL, WS_DIR);
  for (const entry of CASES) {
    results.push(await one(entry));
  }
  writeFileSync(join(SHOTS, "shots.json"), JSON.stringify(results, null, 2));
  const noRewrite = results.filter((r) => !r.offered.some((t) => !/^Ignore |^Quick Fix$|^Fix all|^Confirm|^Learn more|^More Actions/.test(t)));
  const hidden = results.filter((r) => !r.fixVisible);
  if (noRewrite.length) console.log(`no rewrite offered: ${noRewrite.map((r) => r.code).join(", ")}`);
  if (hidden.length) console.log(`fix out of sight: ${hidden.map((r) => `${r.code} (${r.fixTop}px of ${r.height})`).join(", ")}`);
  ok = noRewrite.length === 0 && hidden.length === 0;
} catch (error) {
  console.log(`ui-shots error: ${error.message}`);
  await shot("shots-failure").catch(() => {});
} finally {
  await browser.close();
  lap(ok ? "PASS" : "FAIL");
  process.exit(ok ? 0 : 1);
}
