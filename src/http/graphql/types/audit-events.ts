import type { AuditEvent as AuditEventShape, EventFeedQuery } from '../../../application/index.ts';
import { accessWatch } from '../../access-watch.ts';
import { payFromBudget } from '../../replay-payment.ts';
import { withArgumentNames } from '../argument-names.ts';
import { builder } from '../builder.ts';
import { resumedStream } from '../../live-stream.ts';
import { exposedConnection, positionConnection } from '../page.ts';
import { noteStorePosition } from '../store-position.ts';
import { RecordedEvent } from './event-fields.ts';

/**
 * REST's GET /v1/audit/events, with its scope and rules: `auditEvents`, a page at a time, and the
 * `auditEvent` subscription, its `Accept: text/event-stream` variant. Cursors are store positions,
 * not opaque as the other lists' are: the feed speaks positions everywhere (REST's `after`,
 * `Last-Event-ID`, `extensions.storePosition`, `petstore events --from`), every node shows its own,
 * and one taken from any of them starts a page or a subscription.
 */

const AuditEvent = builder.objectRef<AuditEventShape>('AuditEvent').implement({
  description: 'One event of the store, as REST’s audit feed shows it: its secret material left out.',
  interfaces: [RecordedEvent],
  fields: (t) => ({ stream: t.exposeString('stream', { description: 'Such as `pet-42`.' }) }),
});

const AuditEventConnection = exposedConnection(AuditEvent, {
  connection: 'AuditEventConnection',
  edge: 'AuditEventEdge',
});

const FEED_ARGUMENTS = new Map([['limit', 'first']]);
const AUDIT = 'audit:read';

type FilterArguments = { after?: string | null; stream?: string | null; type?: string | null };

function filter(args: FilterArguments): Omit<EventFeedQuery, 'limit'> {
  return {
    ...(args.after != null && { after: args.after }),
    ...(args.stream != null && { stream: args.stream }),
    ...(args.type != null && { type: args.type }),
  };
}

builder.queryField('auditEvents', (t) =>
  t.field({
    type: AuditEventConnection,
    nullable: true,
    authScopes: { scope: AUDIT },
    description:
      'Every event of the store in store order, oldest first: REST’s GET /v1/audit/events. With `type`, a ' +
      'request reads at most 10,000 events: a page may hold fewer than `first`, even none, and still have a ' +
      'next page, which starts after `pageInfo.endCursor`.',
    args: {
      first: t.arg.int({ description: '1 to 100; 20 when absent.' }),
      after: t.arg.string({
        description: 'A store position: a cursor, a node’s `position` or an `extensions.storePosition`.',
      }),
      stream: t.arg.string({ description: 'Only the events of this stream.' }),
      type: t.arg.string({ description: 'Only the events of this type.' }),
    },
    resolve: async (_root, args, { application }) => {
      const page = await withArgumentNames(FEED_ARGUMENTS, () =>
        application.eventFeed({ ...filter(args), ...(args.first != null && { limit: args.first }) }),
      );
      return positionConnection(page.events, page.nextAfter);
    },
  }),
);

builder.subscriptionField('auditEvent', (t) =>
  t.field({
    type: AuditEvent,
    authScopes: { scope: AUDIT },
    description:
      'The audit feed live, in store order: REST’s GET /v1/audit/events with Accept: text/event-stream. Each ' +
      'event carries its position in `extensions.storePosition` too. It ends when the server shuts down, and ' +
      'once the key may no longer read the feed, with that error.',
    args: {
      after: t.arg.string({
        description:
          'A store position: the events after it first, then live ones, with no gap and no repeat. Absent: ' +
          'from now on. Reading the store from it costs the key one more request per 10,000 events read past the first 10,000.',
      }),
      stream: t.arg.string({ description: 'Only the events of this stream.' }),
      type: t.arg.string({ description: 'Only the events of this type.' }),
    },
    subscribe: async (_root, args, { application, closing, req, reply }) => {
      const following = new AbortController();
      // Checked here, as REST checks them before its stream starts: a bad argument fails the request.
      const events = await application.followEvents(filter(args), following.signal, payFromBudget(reply));
      return resumedStream(
        () => ({ replayed: events, unsubscribe: () => following.abort() }),
        closing,
        accessWatch(req, [AUDIT]),
      );
    },
    resolve: (event, _args, context) => {
      noteStorePosition(context, BigInt(event.position));
      return event;
    },
  }),
);
