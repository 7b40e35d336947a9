import { z } from "@hono/zod-openapi";
import { CHANNEL_KINDS } from "../../core/channels.ts";
import { DESTINATIONS } from "../../notifications/destinations/index.ts";
import { ChannelSchema, NotifyWhenSchema } from "../../services/channel-view.ts";
import { DeliverySchema } from "../../services/webhook-view.ts";
import { PageMeta } from "./common.ts";

/**
 * Request bodies and envelopes of /channels. A channel is created with the common fields and the fields of its
 * `kind`'s destination (notifications/destinations/), one strict object per kind, so a field of another kind
 * is a 400; URL policy (https, private addresses) is the service's 422.
 */

const common = {
  name: z.string().trim().min(1).max(200).openapi({ example: "ops mailbox" }),
  notify_when: NotifyWhenSchema.optional(),
  /** Omitted or null: every domain, those added later too. */
  domain_ids: z.array(z.uuid()).max(1_000).nullable().optional(),
};

/** One body per kind, discriminated by `kind`. */
export const CreateChannelBody = z
  .discriminatedUnion(
    "kind",
    CHANNEL_KINDS.map((kind) => DESTINATIONS[kind].config.extend({ kind: z.literal(kind), ...common }).openapi(`CreateChannel_${kind}`)) as unknown as [
      z.ZodObject<{ kind: z.ZodLiteral<"email"> }>,
      ...z.ZodObject<{ kind: z.ZodLiteral<"email"> }>[],
    ],
  )
  .openapi("CreateChannel");

/** PATCH /channels/{id}: the destination and its secrets never change (create a new channel instead). */
export const UpdateChannelBody = z
  .strictObject({
    name: common.name.optional(),
    notify_when: NotifyWhenSchema.optional(),
    domain_ids: common.domain_ids,
    active: z.boolean().optional().openapi({ description: "true switches an inactive channel back on" }),
  })
  .openapi("UpdateChannel");

export const ChannelListSchema = z.object({ data: z.array(ChannelSchema), meta: z.object({ total: z.number().int() }) }).openapi("ChannelList");
export const ChannelDeliveryListSchema = z.object({ data: z.array(DeliverySchema), meta: PageMeta }).openapi("ChannelDeliveryList");
