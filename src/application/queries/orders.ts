import { ORDER_STATUSES, type OrderStatus, type VersionedOrder } from '../../domain/orders.ts';
import type { PetStatus } from '../../domain/pets.ts';
import type { RequestContext } from '../../shared/context.ts';
import { ValidationError } from '../../shared/errors.ts';
import { orderNotFound, visibleOrder } from '../commands/order-stream.ts';
import { validateOrderId } from '../commands/close-order.ts';
import type { OrderReadModel, PetReadModel } from '../ports/read-models.ts';
import { nextAfter, validateAfter, validateLimit } from './paging.ts';

export type ListOrdersQuery = { readonly limit?: number; readonly status?: string; readonly after?: number };

export type OrdersPage = {
  /** In ascending id order: the order they were placed in, per process. */
  readonly orders: readonly VersionedOrder[];
  /** Pass as `after` for the next page; absent on the last page. */
  readonly nextAfter?: number;
};

/** The caller's own orders (every order, for an admin key or the CLI), paged like the pet list. */
export function listOrdersQuery(readModel: OrderReadModel) {
  return function listOrders(query: ListOrdersQuery, context: RequestContext): OrdersPage {
    const limit = validateLimit(query.limit);
    const status = query.status === undefined ? undefined : validateOrderStatus(query.status);
    const after = validateAfter(query.after, 'an order');
    const owner = context.admin === true || context.apiKeyId === undefined ? undefined : context.apiKeyId;
    const { orders, hasMore } = readModel.page({
      limit,
      ...(owner !== undefined && { owner }),
      ...(status !== undefined && { status }),
      ...(after !== undefined && { after }),
    });
    const next = nextAfter(orders, hasMore);
    return next === undefined ? { orders } : { orders, nextAfter: next };
  };
}

/** One order, if the caller may see it: another key's order is a 404, like an unknown one. */
export function getOrderQuery(readModel: OrderReadModel) {
  return function getOrder(orderId: number | bigint, context: RequestContext): VersionedOrder {
    const id = validateOrderId(orderId);
    const order = readModel.getOrder(id);
    if (order === undefined || visibleOrder(order, id, context) === undefined) throw orderNotFound(id);
    return order;
  };
}

/** How many live pets are available, pending (held by an order) and sold. */
export function inventoryQuery(pets: PetReadModel) {
  return function inventory(): Record<PetStatus, number> {
    return pets.countByStatus();
  };
}

function validateOrderStatus(status: string): OrderStatus {
  if (!(ORDER_STATUSES as readonly string[]).includes(status)) {
    throw new ValidationError(`status must be one of ${ORDER_STATUSES.join(', ')}.`, 'status');
  }
  return status as OrderStatus;
}
