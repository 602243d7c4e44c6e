import { type OrdersState, pageOrders } from '../../projections/orders.ts';
import type { OrderReadModel } from '../application/ports/read-models.ts';
import type { VersionedOrder } from '../domain/orders.ts';
import { ORDER_EVENT_TYPES } from '../domain/orders.ts';
import type { ReadModel } from './read-model.ts';

/** The application's OrderReadModel over the orders projection's state. */
export function orderReadModel(
  readModel: ReadModel<OrdersState>,
  waitFor: (position: bigint) => Promise<void>,
): OrderReadModel {
  return {
    getOrder: (id) => readModel.state.byId.get(id),
    page: (query) => pageOrders(readModel.state, query),
    onChange(listener: (order: VersionedOrder, position: bigint) => void) {
      return readModel.onApplied((event) => {
        if (!ORDER_EVENT_TYPES.has(event.type)) return;
        const order = readModel.state.byId.get(event.data.orderId as number);
        if (order !== undefined && order.version === Number(event.revision)) listener(order, event.position);
      });
    },
    waitFor,
  };
}
