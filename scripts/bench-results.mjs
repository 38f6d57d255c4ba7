// How a bench run's sections join the previous results (results.json). Kept apart from
// bench.mjs, which runs on import, so that the tests can call it.

/**
 * The sections a run leaves: in the benches' `order`, those it measured, and the previous
 * results' for the rest, each with the date it was measured (`previousDate` for sections
 * written before sections carried one). A section whose run failed keeps the figures it had,
 * with the failure recorded (`failure`, shown above them): a bench that could not run this time
 * (a tool missing on the machine, a timeout) loses nothing that was measured before.
 *
 * `measured` holds full sections, and for each failed run `{ id, failure: { why, date, seconds } }`.
 */
export function mergeSections(order, measured, previous, previousDate) {
  return order
    .map((id) => {
      const fresh = measured.find((section) => section.id === id);
      const before = previous.find((section) => section.id === id);
      const kept = before === undefined ? undefined : { ...before, date: before.date ?? previousDate };
      if (fresh === undefined) return kept;
      if (fresh.failure === undefined) return fresh;
      if (kept !== undefined && kept.figures.length + kept.values.length > 0)
        return { ...kept, failure: fresh.failure };
      return {
        id,
        title: kept?.title ?? id,
        figures: [],
        values: [],
        notes: [],
        seconds: fresh.failure.seconds,
        date: fresh.failure.date,
        failure: fresh.failure,
      };
    })
    .filter((section) => section !== undefined);
}

/** The line said above a section whose last run failed. */
export function describeFailure(section) {
  const { failure } = section;
  if (failure === undefined) return null;
  const figures =
    section.figures.length + section.values.length > 0
      ? `the figures below are those measured on ${section.date}`
      : 'nothing was measured before';
  return `**The run of ${failure.date} failed** (${failure.why}; see its console output): ${figures}.`;
}
