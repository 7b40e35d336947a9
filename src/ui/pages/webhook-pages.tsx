/** @jsxImportSource hono/jsx */
import { WEBHOOK_EVENT_KINDS } from "../../core/crawl-events.ts";
import type { DeliveryView, TestResultView, WebhookCreatedView, WebhookView } from "../../services/webhook-view.ts";
import { SECRET_WARNING } from "../../services/webhooks.service.ts";
import { can, type Viewer } from "../ui-env.ts";
import type { Problem } from "../form-problem.ts";
import { FormError } from "../components/form-error.tsx";
import { Columns, Csrf, Notice, StatusBadge } from "../components/layout.tsx";
import { Time } from "../components/local-time.tsx";
import { DeliveryLog, TargetActions } from "../components/delivery-attempts.tsx";

/** The webhook list (with the new secret, once) and a webhook's page (test result, deliveries, attempts). */

export const DELIVERIES_PER_PAGE = 20;

const NOTICES: Record<string, string> = {
  redelivered: "Delivery queued again: it is sent within a few seconds.",
  deleted: "Webhook deleted.",
};

/** What was typed into the add form, shown again when it was refused. */
interface WebhookDraft {
  url: string;
  name: string;
  events: string[];
}

export function WebhookList(props: {
  viewer: Viewer;
  webhooks: WebhookView[];
  notice?: string;
  error?: Problem;
  draft?: WebhookDraft;
  created?: WebhookCreatedView;
}) {
  const { viewer } = props;
  return (
    <>
      <h1>Webhooks</h1>
      <Notice text={NOTICES[props.notice ?? ""]} />
      {props.created !== undefined && (
        <section class="notice success" aria-labelledby="secret" role="status">
          <h2 id="secret">Webhook created</h2>
          <p>{SECRET_WARNING}</p>
          <p>
            Signing secret:{" "}
            <code class="secret" id="webhook-secret">
              {props.created.secret}
            </code>
          </p>
        </section>
      )}
      {props.webhooks.length === 0 ? (
        <p class="muted">No webhook yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <Columns names={["Endpoint", "Events", "State"]} />
            <tbody>
              {props.webhooks.map((hook) => (
                <tr>
                  <td class="url">
                    <a href={`/ui/webhooks/${hook.id}`}>{hook.name ?? hook.url}</a>
                    {hook.name !== null && <div class="muted">{hook.url}</div>}
                  </td>
                  <td>{hook.events.join(", ")}</td>
                  <td>
                    <StatusBadge status={hook.active ? "active" : "inactive"} />
                    {hook.disabled_reason !== null && <div class="muted">{hook.disabled_reason}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {can(viewer, "webhooks:write") && (
        <section class="panel" aria-labelledby="add-webhook">
          <h2 id="add-webhook">Add a webhook</h2>
          {props.error !== undefined && <FormError problem={props.error} />}
          <form method="post" action="/ui/webhooks">
            <Csrf viewer={viewer} />
            <div class="row">
              <div>
                <label for="hook-url">Endpoint URL (https)</label>
                <input id="hook-url" name="url" type="url" required placeholder="https://example.com/hooks/linkpatrol" value={props.draft?.url ?? ""} />
              </div>
              <div>
                <label for="hook-name">Name (optional)</label>
                <input id="hook-name" name="name" type="text" maxlength={200} value={props.draft?.name ?? ""} />
              </div>
            </div>
            <fieldset>
              <legend>Events (none ticked: all)</legend>
              <div class="row">
                {WEBHOOK_EVENT_KINDS.map((kind) => (
                  <label class="check" for={`event-${kind}`}>
                    <input type="checkbox" id={`event-${kind}`} name="events" value={kind} checked={props.draft?.events.includes(kind) === true} />
                    {kind}
                  </label>
                ))}
              </div>
            </fieldset>
            <p>
              <button type="submit">Add webhook</button>
            </p>
          </form>
        </section>
      )}
    </>
  );
}

export function WebhookPage(props: {
  viewer: Viewer;
  hook: WebhookView;
  deliveries: { items: DeliveryView[]; total: number };
  page: number;
  notice?: string;
  test?: TestResultView;
  error?: Problem;
}) {
  const { viewer, hook } = props;
  const write = can(viewer, "webhooks:write");
  const pages = Math.max(1, Math.ceil(props.deliveries.total / DELIVERIES_PER_PAGE));
  return (
    <>
      <p>
        <a href="/ui/webhooks">← Webhooks</a>
      </p>
      <h1 class="url">{hook.name ?? hook.url}</h1>
      <p>
        <code class="url">{hook.url}</code> <StatusBadge status={hook.active ? "active" : "inactive"} />
      </p>
      <p class="muted">
        Events: {hook.events.join(", ")} · created <Time iso={hook.created_at} />
        {hook.disabled_reason !== null && ` · switched off: ${hook.disabled_reason}`}
      </p>
      <Notice text={NOTICES[props.notice ?? ""]} />
      {props.error !== undefined && <FormError problem={props.error} />}
      {props.test !== undefined && (
        <p class={`notice ${props.test.delivered ? "success" : "error"}`} role="status" id="test-result">
          Test {props.test.delivered ? "delivered" : "failed"}: {props.test.status_code === null ? "no HTTP answer" : `HTTP ${props.test.status_code}`} in{" "}
          {props.test.duration_ms} ms{props.test.error !== null && ` (${props.test.error})`}
        </p>
      )}
      {write && <TargetActions viewer={viewer} action={`/ui/webhooks/${hook.id}`} noun="webhook" test="Send a test" />}
      <DeliveryLog
        viewer={viewer}
        write={write}
        deliveries={props.deliveries}
        firstColumn="Event"
        first={(delivery) => <code>{delivery.event}</code>}
        redeliver={(delivery) => `/ui/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`}
        page={props.page}
        pages={pages}
        pageHref={(page) => `/ui/webhooks/${hook.id}?page=${page}`}
      />
    </>
  );
}
