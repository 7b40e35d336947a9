/** Where a webhook delivery stands: pending (until sent or given up), delivered, dead. */
export const DELIVERY_STATES = ["pending", "delivered", "dead"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
