// Shared by the e2e drivers: Debian's chromium, headless, through playwright-core (which never
// downloads a browser of its own).
import { join } from "node:path";
import { chromium } from "playwright-core";

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export function stopwatch(name) {
  const start = Date.now();
  return (message) => console.log(`[${name} ${((Date.now() - start) / 1000).toFixed(1)}s] ${message}`);
}

// A fresh browser's page for one e2e driver, a lap logger, and a screenshot helper that
// writes `<name>.png` into `shots` and logs it.
export async function openSession(name, shots, height = 900) {
  const lap = stopwatch(name);
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1400, height } });
  const shot = async (file) => {
    await page.screenshot({ path: join(shots, `${file}.png`) });
    lap(`screenshot ${file}.png`);
  };
  return { lap, browser, page, shot };
}

// code-server's workbench on the folder, once it is visible.
export async function openWorkbench(page, lap, url, folder) {
  await page.goto(`${url}/?folder=${encodeURIComponent(folder)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 60_000 });
  lap("workbench visible");
}
