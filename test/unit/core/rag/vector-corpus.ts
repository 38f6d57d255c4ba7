import fc from 'fast-check';

/**
 * Random rows and a query of one random dimension (1 to `maxDimensions`), finite float32 values
 * in [-4, 4]: for checking a vector scan against a plain reference.
 */
export function vectorCorpus({
  maxDimensions,
  maxRows,
}: {
  maxDimensions: number;
  maxRows: number;
}) {
  return fc.integer({ min: 1, max: maxDimensions }).chain((dimensions) => {
    const vector = fc.float32Array({
      minLength: dimensions,
      maxLength: dimensions,
      noNaN: true,
      min: -4,
      max: 4,
    });
    return fc.record({
      rows: fc.array(vector, { minLength: 1, maxLength: maxRows }),
      query: vector,
    });
  });
}
