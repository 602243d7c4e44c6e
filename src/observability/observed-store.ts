import type { EventStore, NewEvent } from '../application/ports/event-store.ts';

/**
 * Sees one append: the events it carries, and the call that appends them. An observer may time the
 * call, or give it other events (tracing stamps their metadata), and must make it exactly once.
 */
export type AppendObserver = <T>(
  events: readonly NewEvent[],
  append: (events: readonly NewEvent[]) => Promise<T>,
) => Promise<T>;

type StreamAppends = readonly { readonly events: readonly NewEvent[] }[];
type Method = (...args: unknown[]) => unknown;

/**
 * The store, with `observer` around every append: a decorator of the port, so that metrics and
 * tracing need no line in any adapter. Both append shapes are seen, one stream
 * (`appendToStream(stream, events, options)`) and several at once (`appendToStreams(appends)`);
 * everything else goes straight to the store.
 */
export function observeAppends(store: EventStore, observer: AppendObserver): EventStore {
  const methods = new Map<PropertyKey, unknown>();
  const wrap = (name: PropertyKey, method: Method): Method => {
    if (name === 'appendToStream') {
      return (stream, events, ...rest) =>
        observer(
          events as readonly NewEvent[],
          (observed) => method.call(store, stream, observed, ...rest) as Promise<unknown>,
        );
    }
    if (name === 'appendToStreams') {
      return (appends, ...rest) => {
        const groups = appends as StreamAppends;
        return observer(
          groups.flatMap((group) => group.events),
          (observed) => {
            let next = 0;
            const regrouped = groups.map((group) => ({
              ...group,
              events: observed.slice(next, (next += group.events.length)),
            }));
            return method.call(store, regrouped, ...rest) as Promise<unknown>;
          },
        );
      };
    }
    return method.bind(store);
  };
  return new Proxy(store, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      if (!methods.has(name)) methods.set(name, wrap(name, value as Method));
      return methods.get(name);
    },
  });
}

/**
 * One observer that runs `outerFirst` around an append, the first outermost: one decorator of the
 * store for them all, where one each put a Proxy before every call of the store. Undefined for none.
 */
export function chainObservers(outerFirst: readonly AppendObserver[]): AppendObserver | undefined {
  if (outerFirst.length === 0) return undefined;
  return outerFirst.reduceRight(
    (inner, outer) =>
      <T>(events: readonly NewEvent[], append: (events: readonly NewEvent[]) => Promise<T>) =>
        outer(events, (seen) => inner(seen, append)),
  );
}
