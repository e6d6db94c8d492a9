// How paths appear in the status bar: short enough for the language status item (a full
// venv path ran off the window), while the logs keep the full path. Plain data only, so
// the unit tests run without VS Code.

const KEEP_PARTS = 3;
const MAX_LENGTH = 40;

/** `~` for the home directory, and only the last few parts of a long path (`…/.venv/bin/python`). */
export function shortPath(full: string, home: string | undefined): string {
  let shown = full;
  if (home && (full === home || full.startsWith(home + "/") || full.startsWith(home + "\\"))) {
    shown = "~" + full.slice(home.length);
  }
  if (shown.length <= MAX_LENGTH) {
    return shown;
  }
  const separator = shown.includes("\\") && !shown.includes("/") ? "\\" : "/";
  const parts = shown.split(separator).filter((part) => part !== "");
  return parts.length <= KEEP_PARTS ? shown : `…${separator}${parts.slice(-KEEP_PARTS).join(separator)}`;
}

/** Every absolute path in a launch description, shortened (the words around them kept). */
export function shortDescription(description: string, home: string | undefined): string {
  return description.replace(/(?:[A-Za-z]:\\|\/)[^\s()]+/g, (path) => shortPath(path, home));
}
