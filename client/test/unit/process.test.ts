// Plain-node tests: helper processes, and recognising pip's "cannot reach the index" output.
import * as assert from "node:assert";
import { looksOffline, runProcess } from "../../src/process";

const python = process.env.PYTHON || "python3";

suite("helper processes", () => {
  test("output and exit code come back", async () => {
    const lines: string[] = [];
    const result = await runProcess(python, ["-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"], {
      onLine: (line) => lines.push(line),
    });
    assert.strictEqual(result.code, 3);
    assert.strictEqual(result.stdout.trim(), "out");
    assert.strictEqual(result.stderr.trim(), "err");
    assert.deepStrictEqual(lines.sort(), ["err", "out"]);
  });

  test("a missing executable is a spawn error, not a crash", async () => {
    const result = await runProcess("/nonexistent/python3", ["-V"]);
    assert.strictEqual(result.code, null);
    assert.match(String(result.spawnError), /ENOENT/);
  });

  test("a process past its timeout is killed", async () => {
    const result = await runProcess(python, ["-c", "import time; time.sleep(30)"], { timeoutMs: 500 });
    assert.notStrictEqual(result.code, 0);
  });

  test("pip's output with an unreachable index reads as offline", async function () {
    this.timeout(60_000);
    // Port 9 (discard) on localhost: nothing listens, so every request is refused at once.
    const result = await runProcess(
      python,
      ["-m", "pip", "download", "--no-cache-dir", "--retries", "0", "--timeout", "2", "--index-url",
        "http://127.0.0.1:9/simple", "--dest", "/nonexistent-download-dir", "pygls"],
      { timeoutMs: 50_000 },
    );
    assert.notStrictEqual(result.code, 0);
    assert.ok(looksOffline(result.stdout + result.stderr), result.stdout + result.stderr);
    assert.ok(!looksOffline("ERROR: Could not build wheels for libcst"));
  });
});
