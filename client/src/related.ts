// VS Code shows a diagnostic's relatedInformation inside the hover, above the language
// server's own part, in a box about 250 px high: four evidence rows push the server's
// **Fix:** line out of sight (measured by client/e2e/ui-shots.mjs). A row that points at the
// diagnostic's own range (the failing backward "frees the graph in iteration 1", "reaches it
// again in iteration 2") takes you where you already are, and the message says what it says;
// it is dropped here, in VS Code only. Rows elsewhere (where the graph was built, where it
// crossed the iteration) stay, in the hover and in the Problems panel. Plain data only, so
// the unit tests run without VS Code.

interface Place {
  line: number;
  character: number;
}
interface Span {
  start: Place;
  end: Place;
}
interface Related {
  location: { uri: { toString(): string }; range: Span };
}
interface WithRelated {
  range: Span;
  relatedInformation?: Related[];
}

const samePlace = (a: Place, b: Place) => a.line === b.line && a.character === b.character;
const within = (inner: Span, outer: Span) =>
  (inner.start.line > outer.start.line ||
    (inner.start.line === outer.start.line && inner.start.character >= outer.start.character)) &&
  (inner.end.line < outer.end.line || (inner.end.line === outer.end.line && inner.end.character <= outer.end.character));

/** The diagnostic without the related rows that lie inside its own range (in its document). */
export function withoutSelfReferences<T extends WithRelated>(diagnostic: T, uri: { toString(): string }): T {
  const rows = diagnostic.relatedInformation;
  if (!rows?.length) {
    return diagnostic;
  }
  const document = uri.toString();
  const kept = rows.filter(
    (row) =>
      row.location.uri.toString() !== document ||
      !(within(row.location.range, diagnostic.range) || samePlace(row.location.range.start, diagnostic.range.start)),
  );
  if (kept.length !== rows.length) {
    diagnostic.relatedInformation = kept.length ? kept : undefined;
  }
  return diagnostic;
}

interface Report<D> {
  kind: string;
  items?: D[];
  uri?: { toString(): string };
}

/** A pulled report (document or workspace item) with each full item's rows trimmed. */
export function reportWithoutSelfReferences<D extends WithRelated, R extends Report<D> | null | undefined>(
  report: R,
  uri?: { toString(): string },
): R {
  const document = report?.uri ?? uri;
  if (report?.kind === "full" && report.items && document) {
    report.items.forEach((diagnostic) => withoutSelfReferences(diagnostic, document));
  }
  return report;
}
