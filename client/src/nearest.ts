// Which diagnostics a command run from the palette means: the ones under the cursor, else
// those on the cursor's line (the cursor is often at the line's start or end, outside the
// squiggle, when "Confirm Finding at Runtime" or "Explain" is chosen). Plain data only, so
// the unit tests run without VS Code.

export interface LinePosition {
  line: number;
  character: number;
}

export interface LineRange {
  start: LinePosition;
  end: LinePosition;
}

function before(a: LinePosition, b: LinePosition): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

export function containsPosition(range: LineRange, position: LinePosition): boolean {
  return before(range.start, position) && before(position, range.end);
}

export function nearestDiagnostics<T extends { range: LineRange }>(diagnostics: T[], position: LinePosition): T[] {
  const under = diagnostics.filter((d) => containsPosition(d.range, position));
  if (under.length > 0) {
    return under;
  }
  return diagnostics.filter((d) => d.range.start.line <= position.line && position.line <= d.range.end.line);
}
