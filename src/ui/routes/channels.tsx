/** @jsxImportSource hono/jsx */
import { Hono, type Context } from "hono";
import { CreateChannelBody } from "../../http/schemas/channels.ts";
import { CHANNEL_KINDS, type ChannelKind } from "../../core/channels.ts";
import { InvalidRequestError, NotFoundError } from "../../core/errors.ts";
import type { ChannelTestResultView } from "../../services/channel-view.ts";
import type { ChannelInput, ChannelsService } from "../../services/channels.service.ts";
import type { DomainsService } from "../../services/domains.service.ts";
import { channelFieldsFromForm, KIND_LABELS } from "../channel-form-fields.ts";
import { showAgain } from "../form-problem.ts";
import { CHANNEL_DELIVERIES_PER_PAGE, ChannelForm, ChannelList, ChannelPage } from "../pages/channel-pages.tsx";
import type { UiEnv, Viewer } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";
import { deliveryTargetRoutes, pageQuery, type TargetExtra } from "./delivery-target.ts";

/**
 * Notification channels: the list, a form per kind (validated by the API's own schema, refused forms shown
 * again with what was typed, secrets excepted), a channel's page with "Send test" and its result, the delivery
 * log with each delivery's message as text, redeliver and delete.
 */

/** The channel form's fields by their labels, where the shared ones would say something else ("name" is the site's). */
const CHANNEL_FIELD_LABELS: Record<string, string> = {
  name: "Name",
  url: "URL",
  host: "SMTP server",
  from: "From",
  to: "To",
  domain_ids: "Domains",
  notify_when: "When",
};

function kindOf(value: unknown): ChannelKind {
  if (typeof value === "string" && (CHANNEL_KINDS as readonly string[]).includes(value)) return value as ChannelKind;
  throw new NotFoundError("channel kind", String(value ?? ""));
}

/** The form's fields as the API's body, checked by the same schema (a 400 names each field). */
function inputFromForm(kind: ChannelKind, form: Record<string, string | File | (string | File)[]>): ChannelInput {
  const picked = ([] as unknown[]).concat(form.domain_ids ?? []).filter((id): id is string => typeof id === "string");
  const body = {
    kind,
    name: typeof form.name === "string" ? form.name : "",
    notify_when: typeof form.notify_when === "string" ? form.notify_when : undefined,
    domain_ids: picked.length === 0 ? null : picked,
    ...channelFieldsFromForm(kind, form),
  };
  const parsed = CreateChannelBody.safeParse(body);
  if (!parsed.success) {
    throw new InvalidRequestError(
      "the channel was not created",
      parsed.error.issues.map((issue) => ({ field: issue.path.join(".") || "body", message: issue.message })),
    );
  }
  return parsed.data as ChannelInput;
}

export function channelsRouter(channels: ChannelsService, domains: DomainsService) {
  const router = new Hono<UiEnv>();
  const domainChoices = async () => (await domains.list(1, 1_000)).items.map((d) => ({ id: d.id, name: d.name }));

  const channelPage = async (c: Context<UiEnv>, viewer: Viewer, id: string, extra: TargetExtra<ChannelTestResultView> = {}) => {
    const page = pageQuery(c);
    const channel = await channels.get(id);
    const deliveries = await channels.deliveries(channel.id, page, CHANNEL_DELIVERIES_PER_PAGE);
    const previews = new Map<string, string>();
    for (const delivery of deliveries.items) {
      const text = await channels.deliveryPreview(channel.id, delivery.id);
      if (text !== null) previews.set(delivery.id, text);
    }
    return c.render(<ChannelPage viewer={viewer} channel={channel} deliveries={deliveries} previews={previews} page={page} {...extra} />, {
      title: `Channel ${channel.name}`,
    });
  };

  router.get("/ui/channels", async (c) => {
    const viewer = requireUiScope(c, "notifications:read");
    return c.render(<ChannelList viewer={viewer} channels={(await channels.list()).items} notice={c.req.query("notice")} />, { title: "Notifications" });
  });

  router.get("/ui/channels/new", async (c) => {
    const viewer = requireUiScope(c, "notifications:write");
    const kind = kindOf(c.req.query("kind"));
    return c.render(<ChannelForm viewer={viewer} kind={kind} domains={await domainChoices()} />, { title: `New ${KIND_LABELS[kind]} channel` });
  });

  router.post("/ui/channels", async (c) => {
    const viewer = requireUiScope(c, "notifications:write");
    const form = await c.req.parseBody({ all: true });
    const kind = kindOf(form.kind);
    try {
      const created = await channels.create(inputFromForm(kind, form));
      return c.redirect(`/ui/channels/${created.id}?notice=created`, 303);
    } catch (error) {
      const values = Object.fromEntries(Object.entries(form).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
      const choices = await domainChoices();
      return showAgain(c, error, { sentence: "The channel was not added.", labels: CHANNEL_FIELD_LABELS }, (problem) =>
        c.render(<ChannelForm viewer={viewer} kind={kind} domains={choices} error={problem} values={values} />, {
          title: `New ${KIND_LABELS[kind]} channel`,
        }),
      );
    }
  });

  deliveryTargetRoutes(router, "/ui/channels", { read: "notifications:read", write: "notifications:write" }, channels, channelPage);
  return router;
}
