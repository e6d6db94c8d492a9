// Shared by the e2e drivers: Debian's chromium, headless, through playwright-core (which never
// downloads a browser of its own).
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
