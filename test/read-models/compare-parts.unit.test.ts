import { expect, it } from 'vitest';
import { compareParts } from '../../src/read-models/compare-parts.ts';

/** Parts as a snapshot image hands them out, counting how many have been taken. */
function counted(parts: number) {
  const taken = { count: 0 };
  function* image() {
    for (let part = 0; part < parts; part++) {
      taken.count += 1;
      yield { ids: [part], names: [`Pet ${part}`] };
    }
  }
  return { image, taken };
}

it('lets the event loop take its other work after each part it compares', async () => {
  const { image, taken } = counted(40);
  let takenWhenOtherWorkRan: number | undefined;
  setImmediate(() => (takenWhenOtherWorkRan = taken.count));
  expect(await compareParts(image(), counted(40).image())).toBeUndefined();
  expect(taken.count).toBe(40);
  expect(takenWhenOtherWorkRan).toBe(1);
});
