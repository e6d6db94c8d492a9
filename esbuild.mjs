// Bundles the client into one file (dist/extension.js); with --tests, also compiles the
// extension-host and unit tests into out/test (mocha and vscode stay external: the extension
// host provides `vscode`, and mocha loads test files by path).
import * as esbuild from "esbuild";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const production = process.argv.includes("--production");
const tests = process.argv.includes("--tests");

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node18",
  external: ["vscode"],
  logLevel: "warning",
};

await esbuild.build({
  ...common,
  entryPoints: ["client/src/extension.ts"],
  outfile: "dist/extension.js",
  minify: production,
  sourcemap: !production,
});

if (tests) {
  const testFiles = (dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith(".ts"))
      .map((name) => join(dir, name));
  await esbuild.build({
    ...common,
    external: ["vscode", "mocha"],
    entryPoints: [...testFiles("client/test"), ...testFiles("client/test/suite"), ...testFiles("client/test/unit")],
    outbase: "client/test",
    outdir: "out/test",
    sourcemap: true,
  });
}
