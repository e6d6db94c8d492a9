// First run of the installed VSIX with no network and a bare Python: the `python3` on PATH is a
// fresh venv with nothing in it (no autograd_lint, pygls, libcst, not even pip), and pip cannot
// reach any index (vscode-e2e.sh points every index and proxy at a closed port). The squiggle
// must come all the same, with no prompt to install anything: the server runs from the VSIX's
// bundled/libs with that Python. The hover tells the story; the light bulb of the universal
// VSIX (no libcst) offers "Ignore", the platform one the rewrite.
// Then a correct DCGAN shows no squiggle (its `.data` reads for logging are hints).
// Screenshots: offline-first-run.png, offline-hover.png, offline-quickfix.png,
// offline-dcgan-quiet.png.
// Env: CS_URL, WS_DIR, SAMPLE, SHOTS, PRIVATE_ENV (the private environment's folder, which
// must not be created), EXPECT_REWRITES (1: the VSIX has libcst for this platform).
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openSession, openWorkbench } from "./browser.mjs";

const { CS_URL, WS_DIR, SAMPLE, SHOTS, PRIVATE_ENV, EXPECT_REWRITES } = process.env;
const { lap, browser, page, shot } = await openSession("ui-offline", SHOTS);

async function firstSquiggle() {
  await openWorkbench(page, lap, CS_URL, WS_DIR);
  await page.locator(".explorer-folders-view .monaco-list-row", { hasText: SAMPLE }).first().click({ timeout: 60_000 });
  await page.waitForSelector(".editor-instance .monaco-editor .view-lines", { timeout: 30_000 });
  const lines = readFileSync(join(WS_DIR, SAMPLE), "utf8").split("\n");
  const backwardLine = lines.findIndex((text) => text.includes("loss.backward()")) + 1;
  await page.keyboard.press("F1");
  await page.locator(".quick-input-widget input").fill(`:${backwardLine}`);
  await page.keyboard.press("Enter");
  const squiggle = page.locator(".monaco-editor .squiggly-error").first();
  await squiggle.waitFor({ timeout: 90_000 });
  lap("error squiggle visible on the first run");
  // No notification asked to install or download anything.
  const toasts = await page.locator(".notifications-toasts .notification-toast").allInnerTexts();
  const asking = toasts.filter((text) => /install|download|cannot import/i.test(text));
  if (asking.length) {
    throw new Error(`a notification on first run: ${JSON.stringify(asking)}`);
  }
  if (PRIVATE_ENV && existsSync(PRIVATE_ENV)) {
    throw new Error(`the private environment was created: ${PRIVATE_ENV}`);
  }
  await shot("offline-first-run"); // vscode-e2e.sh checks the log's "is running (bundled server"
  return squiggle;
}

async function hoverAndLightBulb(squiggle) {
  const box = await squiggle.boundingBox();
  const center = [box.x + box.width / 2, box.y + box.height / 2];
  await page.mouse.move(0, 0);
  await page.mouse.move(...center);
  const hover = page.locator(".monaco-hover", { hasText: "Trying to backward through the graph a second time" });
  await hover.first().waitFor({ state: "visible", timeout: 30_000 });
  const text = await hover.first().innerText();
  if (!/detach/.test(text)) {
    throw new Error(`the hover gives no fix: ${text.slice(0, 300)}`);
  }
  await shot("offline-hover");
  await page.mouse.click(...center);
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+.");
  const rows = page.locator(".action-widget .monaco-list-row");
  await rows.first().waitFor({ timeout: 15_000 });
  const offered = (await rows.allInnerTexts()).map((row) => row.replace(/\s+/g, " ").trim());
  lap(`quick fixes offered: ${JSON.stringify(offered)}`);
  if (!offered.some((row) => row.includes("Ignore AG001 on this line"))) {
    throw new Error("no Ignore action in the light bulb");
  }
  const rewrite = offered.some((row) => /detach/i.test(row));
  if (rewrite !== (EXPECT_REWRITES === "1")) {
    throw new Error(`rewrites offered: ${rewrite}, expected ${EXPECT_REWRITES === "1"}`);
  }
  await shot("offline-quickfix");
  await page.keyboard.press("Escape");
}

// A correct DCGAN that logs `output.data.mean()`: the three AG006 reads are hints (drawn as
// faint dots, never in the Problems list), and nothing else is drawn.
async function quietDcgan() {
  const file = "dcgan_logging_correct.py";
  copyFileSync(new URL(`../test/fixtures/${file}`, import.meta.url), join(WS_DIR, file));
  await page.keyboard.press("Control+P");
  await page.locator(".quick-input-widget input").fill(file);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: file }).first().waitFor({ timeout: 60_000 });
  await page.keyboard.press("Enter");
  await page.locator(".monaco-editor .squiggly-hint").first().waitFor({ state: "attached", timeout: 60_000 });
  const hints = await page.locator(".monaco-editor .squiggly-hint").count();
  const loud = await page.locator(".monaco-editor .squiggly-error, .monaco-editor .squiggly-warning, .monaco-editor .squiggly-info").count();
  lap(`dcgan: ${hints} hint decorations, ${loud} squiggles`);
  if (loud !== 0) {
    throw new Error(`a correct DCGAN has ${loud} squiggles`);
  }
  await shot("offline-dcgan-quiet");
}

let ok = false;
try {
  const squiggle = await firstSquiggle();
  await hoverAndLightBulb(squiggle);
  await quietDcgan();
  ok = true;
} catch (error) {
  console.log(`ui-offline error: ${error.message}`);
  await shot("offline-failure").catch(() => {});
} finally {
  await browser.close();
  lap(ok ? "PASS" : "FAIL");
  process.exit(ok ? 0 : 1);
}
