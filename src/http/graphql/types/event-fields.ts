import { builder } from '../builder.ts';

/**
 * What every event the schema shows carries beside its own fields, whichever list shows it (a
 * stream's history, the audit feed): the key that acted and the data as the event recorded it.
 */

export const JSONObject = builder.scalarType('JSONObject', {
  description: 'A JSON object, as the event recorded it.',
  serialize: (value) => value,
  parseValue: () => {
    throw new TypeError('JSONObject is an output type only.');
  },
});

export const Actor = builder.objectRef<{ keyId: string; name: string }>('Actor').implement({
  description: 'The API key that acted: its id and name, never a secret.',
  fields: (t) => ({ keyId: t.exposeString('keyId'), name: t.exposeString('name') }),
});
