/** The `after` argument of the change subscriptions (petChanged, petCreated, orderChanged). */
export const RESUME_AFTER =
  'A store position (`extensions.storePosition` of an event received): deliver the events after it ' +
  'first, then live ones, with no gap and no repeat. Absent: from now on. Reading the store from it costs the ' +
  'key one more request per 10,000 events read past the first 10,000, as REST’s feed does.';
