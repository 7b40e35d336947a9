/** @jsxImportSource hono/jsx */
import { Hono, type Context } from "hono";
import { CreateChannelBody } from "../../api/schemas/channels.ts";
import { CHANNEL_KINDS, type ChannelKind } from "../../core/channels.ts";
import { InvalidRequestError, NotFoundError } from "../../core/errors.ts";
import type { ChannelTestResultView } from "../../services/channel-view.ts";
import type { ChannelInput, ChannelsService } from "../../services/channels.service.ts";
import type { DomainsService } from "../../services/domains.service.ts";
import { channelFieldsFromForm, KIND_LABELS } from "../channel-form-fields.ts";
import { showAgain, type Problem } from "../form-problem.ts";
import { CHANNEL_DELIVERIES_PER_PAGE, ChannelForm, ChannelList, ChannelPage } from "../pages/channel-pages.tsx";
import type { UiEnv, Viewer } from "../ui-env.ts";
import { requireUiScope } from "../ui-scope.ts";

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

  const channelPage = async (c: Context<UiEnv>, viewer: Viewer, id: string, extra: { notice?: string; test?: ChannelTestResultView; error?: Problem } = {}) => {
    const page = Math.max(1, Math.min(100_000, Number.parseInt(c.req.query("page") ?? "1", 10) || 1));
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

  router.get("/ui/channels/:id", (c) => {
    const viewer = requireUiScope(c, "notifications:read");
    return channelPage(c, viewer, c.req.param("id"), { notice: c.req.query("notice") });
  });

  router.post("/ui/channels/:id/test", async (c) => {
    const viewer = requireUiScope(c, "notifications:write");
    const id = c.req.param("id");
    return channelPage(c, viewer, id, { test: await channels.test(id) });
  });

  router.post("/ui/channels/:id/delete", async (c) => {
    requireUiScope(c, "notifications:write");
    await channels.delete(c.req.param("id"));
    return c.redirect("/ui/channels?notice=deleted", 303);
  });

  router.post("/ui/channels/:id/deliveries/:delivery/redeliver", async (c) => {
    const viewer = requireUiScope(c, "notifications:write");
    const id = c.req.param("id");
    try {
      await channels.redeliver(id, c.req.param("delivery"));
    } catch (error) {
      return showAgain(c, error, "The delivery was not queued again.", (problem) => channelPage(c, viewer, id, { error: problem }));
    }
    return c.redirect(`/ui/channels/${id}?notice=redelivered`, 303);
  });

  return router;
}
