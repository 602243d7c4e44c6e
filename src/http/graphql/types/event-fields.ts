import type { HistoryEntry } from '../../../application/index.ts';
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

/**
 * The fields every event the schema shows has, whichever list shows it: `HistoryEvent` (a stream's
 * history) and `AuditEvent` (the audit feed, which adds the stream) implement it.
 */
export const RecordedEvent = builder.interfaceRef<HistoryEntry>('RecordedEvent').implement({
  description: 'One event as the store recorded it, its secret material left out.',
  fields: (t) => ({
    position: t.exposeString('position', {
      description:
        'Its place in the store (a decimal string): positions grow with every event, not always by one.',
    }),
    revision: t.exposeInt('revision', {
      description: 'Its place in its stream, from 0: the version it made.',
    }),
    type: t.exposeString('type'),
    time: t.exposeString('time', { description: 'RFC 3339.' }),
    actor: t.field({
      type: Actor,
      nullable: true,
      description: 'Null for the CLI and the service itself.',
      resolve: (event) => event.actor,
    }),
    requestId: t.exposeString('requestId'),
    data: t.field({ type: JSONObject, resolve: (event) => event.data }),
  }),
});
