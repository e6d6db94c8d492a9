// Builds the server wheel that ships inside the VSIX (bundled/*.whl).
// Python: $PYTHON, else the repository's .venv, else python3.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const python =
  process.env.PYTHON || (existsSync(".venv/bin/python") ? ".venv/bin/python" : process.platform === "win32" ? "python" : "python3");

for (const old of readdirSync("bundled").filter((name) => name.endsWith(".whl"))) {
  rmSync(join("bundled", old));
}
// Without build isolation when setuptools is already there: no download, and a second faster.
let isolation = ["--no-build-isolation"];
try {
  execFileSync(python, ["-c", "import setuptools, wheel"], { stdio: "ignore" });
} catch {
  isolation = [];
}
execFileSync(python, ["-m", "pip", "wheel", "--quiet", "--no-deps", ...isolation, "--wheel-dir", "bundled", "."], {
  stdio: "inherit",
});
const wheels = readdirSync("bundled").filter((name) => name.endsWith(".whl"));
if (wheels.length !== 1) {
  throw new Error(`expected one wheel in bundled/, found ${wheels.length}`);
}
console.log(`bundled/${wheels[0]}`);
