// Which server versions this client can talk to. Kept free of `vscode` so unit tests run in
// plain node.

/** Leading numeric release parts of a PEP 440 / semver string: "0.1.0.dev3" -> [0, 1, 0]. */
export function releaseParts(version: string): number[] {
  const match = /^\s*v?(\d+(?:\.\d+)*)/.exec(version);
  return match ? match[1].split(".").map(Number) : [];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) {
      return diff;
    }
  }
  return 0;
}

/**
 * A server is compatible with this client when it is at least `minimum` and in the same
 * compatibility series: the same major version, or for 0.x the same minor version (a 0.x
 * minor release may change the protocol's custom parts).
 */
export function isCompatible(serverVersion: string, minimum: string): boolean {
  const found = releaseParts(serverVersion);
  const wanted = releaseParts(minimum);
  if (found.length === 0 || wanted.length === 0) {
    return false;
  }
  const seriesLength = wanted[0] === 0 ? 2 : 1;
  const sameSeries = compare(found.slice(0, seriesLength), wanted.slice(0, seriesLength)) === 0;
  return sameSeries && compare(found, wanted) >= 0;
}

/** The range a user should install, for messages: "0.1.x" or "1.x". */
export function seriesLabel(minimum: string): string {
  const [major, minor] = releaseParts(minimum);
  return major === 0 ? `0.${minor ?? 0}.x (at least ${minimum})` : `${major}.x (at least ${minimum})`;
}
