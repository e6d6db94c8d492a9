// Fills bundled/libs: the server (from the wheel build-wheel.mjs made) and its pure-Python
// dependencies (bundled-requirements.txt), so that the extension can start the server with the
// user's interpreter and no network (client/src/bundledServer.ts puts this folder first on
// sys.path). Universal wheels only (py3-none-any), whatever Python runs this script.
//
// libcst (the quick fixes' rewriter) is compiled per platform and Python version: with
// AGL_BUNDLE_TARGET=linux-x64 (npm run package:linux-x64, a platform-specific VSIX the way
// ruff ships them) its manylinux wheels for CPython 3.10-3.14 are unpacked into the same
// folder; each version's extension module has its own file name
// (native.cpython-312-x86_64-linux-gnu.so), so one folder serves them all. Without it (the
// universal VSIX) the server offers only "Ignore" fixes until libcst can be imported.
//
// Python: $PYTHON, else the repository's .venv, else python3. Needs the package index once,
// at packaging time (pip's own configuration applies).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const LIBS = join("bundled", "libs");
const LIBCST = "libcst==1.9.0";
const LIBCST_TARGETS = {
  "linux-x64": {
    platforms: ["manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64"],
    pythons: ["3.10", "3.11", "3.12", "3.13", "3.14"],
  },
};

const python =
  process.env.PYTHON || (existsSync(".venv/bin/python") ? ".venv/bin/python" : process.platform === "win32" ? "python" : "python3");
const pip = (args) => execFileSync(python, ["-m", "pip", "--disable-pip-version-check", ...args], { stdio: "inherit" });

rmSync(LIBS, { recursive: true, force: true });
const universal = ["--only-binary=:all:", "--implementation", "py", "--abi", "none", "--platform", "any"];
pip(["install", "--quiet", "--no-deps", "--no-compile", "--target", LIBS, ...universal, "-r", "client/scripts/bundled-requirements.txt"]);
const wheel = readdirSync("bundled").find((name) => name.startsWith("autograd_lint-") && name.endsWith(".whl"));
if (!wheel) {
  throw new Error("no server wheel in bundled/: run client/scripts/build-wheel.mjs first");
}
pip(["install", "--quiet", "--no-deps", "--no-compile", "--target", LIBS, join("bundled", wheel)]);

const target = process.env.AGL_BUNDLE_TARGET;
if (target) {
  const spec = LIBCST_TARGETS[target];
  if (!spec) {
    throw new Error(`AGL_BUNDLE_TARGET=${target}: libcst is bundled only for ${Object.keys(LIBCST_TARGETS).join(", ")}`);
  }
  const downloads = mkdtempSync(join(tmpdir(), "agl-libcst-"));
  for (const version of spec.pythons) {
    const platforms = spec.platforms.flatMap((platform) => ["--platform", platform]);
    pip(["download", "--quiet", "--no-deps", "--only-binary=:all:", "--python-version", version, ...platforms, "--dest", downloads, LIBCST]);
  }
  // The same release's Python files are identical in every wheel: unpacking them one over
  // the other leaves one package with every version's extension module.
  for (const file of readdirSync(downloads).filter((name) => name.endsWith(".whl"))) {
    execFileSync(python, ["-m", "zipfile", "-e", join(downloads, file), LIBS], { stdio: "inherit" });
  }
  rmSync(downloads, { recursive: true, force: true });
}

// Neither scripts (pip --target puts console scripts in bin/) nor libcst's own test suites.
rmSync(join(LIBS, "bin"), { recursive: true, force: true });
const prune = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (!statSync(path).isDirectory()) continue;
    if (name === "__pycache__" || (name === "tests" && dir.includes("libcst"))) {
      rmSync(path, { recursive: true, force: true });
    } else {
      prune(path);
    }
  }
};
prune(LIBS);
const packages = readdirSync(LIBS).filter((name) => !name.endsWith(".dist-info"));
console.log(`${LIBS}: ${packages.join(", ")}${target ? ` (libcst for ${target})` : ""}`);
