// UI test of the installed VSIX in a notebook: VS Code's built-in ipynb support opens
// samples/notebooks/rnn_hidden_buggy.ipynb in the notebook editor (no Jupyter extension, no
// kernel); the squiggle is on the training cell's backward(), the hover tells the story, the
// quick fix detaches the hidden state in that cell and the squiggle goes.
// Screenshots go to $SHOTS (notebook-hover.png, notebook-fixed.png). Env: CS_URL, WS_DIR, SHOTS.
// The CSS selectors are VS Code's DOM (1.139); the extension-host tests do not depend on them.
import { openSession, openWorkbench } from "./browser.mjs";

const { CS_URL, WS_DIR, SHOTS } = process.env;
const NOTEBOOK = "rnn_hidden_buggy.ipynb";
const { lap, browser, page, shot } = await openSession("ui-notebook", SHOTS, 1000);

async function openNotebook() {
  await openWorkbench(page, lap, CS_URL, WS_DIR);
  await page.keyboard.press("Control+P");
  await page.locator(".quick-input-widget input").fill(NOTEBOOK);
  // Quick open searches the folder first: on a loaded machine that takes a while.
  await page.locator(".quick-input-list .monaco-list-row", { hasText: NOTEBOOK }).first().waitFor({ timeout: 60_000 });
  await page.keyboard.press("Enter");
  await page.waitForSelector(".notebook-editor .cell-editor-container .monaco-editor", { timeout: 60_000 });
  lap(`${NOTEBOOK} open in the notebook editor`);
  // The training cell is near the end: scroll it into view (cells are drawn when visible).
  // Wheel it to the middle of the page: the hover must have room on the screen.
  const training = page.locator(".notebook-editor .view-line", { hasText: "loss.backward()" }).first();
  for (let i = 0; i < 30; i++) {
    const box = (await training.count()) ? await training.boundingBox() : null;
    if (box && box.y > 250 && box.y < 650) break;
    await page.mouse.move(800, 500);
    await page.mouse.wheel(0, box && box.y <= 250 ? -150 : 150);
    await page.waitForTimeout(250);
  }
  await training.waitFor({ timeout: 15_000 });
  const squiggle = page.locator(".notebook-editor .monaco-editor .squiggly-error").first();
  await squiggle.waitFor({ timeout: 90_000 });
  lap("error squiggle visible in the training cell");
  return { training, squiggle };
}

async function hoverAndFix({ training, squiggle }) {
  const [lineBox, squiggleBox] = [await training.boundingBox(), await squiggle.boundingBox()];
  if (Math.abs(lineBox.y - squiggleBox.y) > lineBox.height / 2) {
    throw new Error(`the squiggle (y=${squiggleBox.y}) is not on the backward() line (y=${lineBox.y})`);
  }
  const center = [squiggleBox.x + squiggleBox.width / 2, squiggleBox.y + squiggleBox.height / 2];
  await page.mouse.move(0, 0);
  await page.mouse.move(...center);
  // The notebook keeps a hidden hover widget per cell editor: wait for the visible one.
  const hover = page
    .locator(".monaco-hover")
    .filter({ hasText: "Trying to backward through the graph a second time", visible: true });
  await hover.first().waitFor({ state: "visible", timeout: 30_000 });
  const hoverText = await hover.first().innerText();
  if (!/hidden = hidden\.detach\(\)/.test(hoverText)) {
    throw new Error(`the hover does not give the fix: ${hoverText.slice(0, 300)}`);
  }
  lap(`hover: ${JSON.stringify(hoverText.slice(0, 100))}`);
  await shot("notebook-hover");

  // Into the cell's editor at the squiggle. No Escape (in a notebook it leaves the cell's
  // editor, and Ctrl+. would then go nowhere): moving away closes the hover.
  await page.mouse.click(...center);
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  await page.keyboard.press("Control+.");
  const fix = page.locator(".action-widget .monaco-list-row", { hasText: /detach/i }).first();
  await fix.waitFor({ timeout: 15_000 });
  lap(`quick fix offered: ${JSON.stringify(await fix.innerText())}`);
  await fix.click();
  await page.locator(".notebook-editor .view-line", { hasText: "hidden = hidden.detach()" }).first().waitFor({ timeout: 15_000 });
  await page.locator(".notebook-editor .monaco-editor .squiggly-error").first().waitFor({ state: "detached", timeout: 30_000 });
  lap("the fix is in the training cell and the squiggle is gone");
  await shot("notebook-fixed");
}

let ok = false;
try {
  await hoverAndFix(await openNotebook());
  ok = true;
} catch (error) {
  console.log(`ui-notebook error: ${error.message}`);
  await shot("notebook-failure").catch(() => {});
} finally {
  await browser.close();
  lap(ok ? "PASS" : "FAIL");
  process.exit(ok ? 0 : 1);
}
