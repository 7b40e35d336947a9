/** @jsxImportSource hono/jsx */
import { CHANNEL_KINDS, NOTIFY_WHEN, type ChannelKind } from "../../core/channels.ts";
import type { ChannelTestResultView, ChannelView } from "../../services/channel-view.ts";
import type { DeliveryView } from "../../services/webhook-view.ts";
import { CHANNEL_FORM_FIELDS, KIND_LABELS, type ChannelFormField } from "../channel-form-fields.ts";
import { can, type Viewer } from "../ui-env.ts";
import { FormError } from "../components/form-error.tsx";
import { Columns, Csrf, Notice, StatusBadge } from "../components/layout.tsx";
import type { Problem } from "../form-problem.ts";
import { DeliveryLog, TargetActions } from "../components/delivery-attempts.tsx";
import { Time } from "../components/local-time.tsx";

/** Notification channels: the list, the form to add one of a kind, and a channel's page (test, deliveries with the message each carried). */

export const CHANNEL_DELIVERIES_PER_PAGE = 20;

const NOTICES: Record<string, string> = {
  created: "Channel created. Send a test to see a message arrive.",
  redelivered: "Delivery queued again: it is sent within a few seconds.",
  deleted: "Channel deleted.",
};

const WHEN_LABELS: Record<(typeof NOTIFY_WHEN)[number], string> = {
  changed: "when something changed (links broke or were fixed, or the crawl failed)",
  always: "after every crawl",
  failure: "only when a crawl failed",
};

function domainsText(channel: ChannelView): string {
  return channel.domains === null ? "every domain" : channel.domains.length === 0 ? "no domain" : channel.domains.map((d) => d.name).join(", ");
}

export function ChannelList(props: { viewer: Viewer; channels: ChannelView[]; notice?: string }) {
  const { viewer } = props;
  return (
    <>
      <h1>Notifications</h1>
      <p class="muted">Email and chat channels get a digest of each crawl: new broken links, links still broken, fixed links, failures.</p>
      <Notice text={NOTICES[props.notice ?? ""]} />
      {props.channels.length === 0 ? (
        <p class="muted">No channel yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <Columns names={["Channel", "Sends", "For", "State"]} />
            <tbody>
              {props.channels.map((channel) => (
                <tr>
                  <td class="url">
                    <a href={`/ui/channels/${channel.id}`}>{channel.name}</a>
                    <div class="muted">
                      {KIND_LABELS[channel.kind]}: {channel.target}
                    </div>
                  </td>
                  <td>{channel.notify_when}</td>
                  <td>{domainsText(channel)}</td>
                  <td>
                    <StatusBadge status={channel.active ? "active" : "inactive"} />
                    {channel.disabled_reason !== null && <div class="muted">{channel.disabled_reason}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {can(viewer, "notifications:write") && (
        <section class="panel" aria-labelledby="add-channel">
          <h2 id="add-channel">Add a channel</h2>
          <ul class="inline-list">
            {CHANNEL_KINDS.map((kind) => (
              <li>
                <a href={`/ui/channels/new?kind=${kind}`}>{KIND_LABELS[kind]}</a>
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

function Field(props: { field: ChannelFormField; value?: string }) {
  const { field } = props;
  const id = `channel-${field.name}`;
  const input =
    field.input === "select" ? (
      <select id={id} name={field.name}>
        {(field.options ?? []).map((option) => (
          <option value={option} selected={option === props.value}>
            {option}
          </option>
        ))}
      </select>
    ) : field.input === "list" ? (
      <textarea id={id} name={field.name} rows={3} required={field.required} placeholder={field.placeholder}>
        {props.value ?? ""}
      </textarea>
    ) : (
      <input
        id={id}
        name={field.name}
        type={field.input}
        required={field.required}
        placeholder={field.placeholder}
        autocomplete="off"
        value={field.input === "password" ? undefined : props.value}
      />
    );
  return (
    <div>
      <label for={id}>{field.label}</label>
      {input}
      {field.help !== undefined && <div class="muted">{field.help}</div>}
    </div>
  );
}

/** The form for a new channel of `kind`; `values` are what the user typed when it was refused (secrets left out). */
export function ChannelForm(props: {
  viewer: Viewer;
  kind: ChannelKind;
  domains: { id: string; name: string }[];
  error?: Problem;
  values?: Record<string, string>;
}) {
  const { viewer, kind } = props;
  const values = props.values ?? {};
  return (
    <>
      <p>
        <a href="/ui/channels">← Notifications</a>
      </p>
      <h1>New {KIND_LABELS[kind]} channel</h1>
      <p class="muted">
        Set-up for each destination: <a href="/docs">the API docs</a> and docs/notifications.md.
      </p>
      {props.error !== undefined && <FormError problem={props.error} />}
      <form method="post" action="/ui/channels">
        <Csrf viewer={viewer} />
        <input type="hidden" name="kind" value={kind} />
        <div>
          <label for="channel-name">Name</label>
          <input id="channel-name" name="name" type="text" required maxlength={200} value={values.name} />
        </div>
        {CHANNEL_FORM_FIELDS[kind].map((field) => (
          <Field field={field} value={field.input === "password" ? undefined : values[field.name]} />
        ))}
        <fieldset>
          <legend>Send a digest</legend>
          {NOTIFY_WHEN.map((option) => (
            <label class="check" for={`when-${option}`}>
              <input type="radio" id={`when-${option}`} name="notify_when" value={option} checked={(values.notify_when ?? "changed") === option} />
              {WHEN_LABELS[option]}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>For which domains (none ticked: every domain, those added later too)</legend>
          {props.domains.length === 0 && <p class="muted">No domain yet: the channel will be for every domain.</p>}
          {props.domains.map((domain) => (
            <label class="check" for={`domain-${domain.id}`}>
              <input type="checkbox" id={`domain-${domain.id}`} name="domain_ids" value={domain.id} />
              {domain.name}
            </label>
          ))}
        </fieldset>
        <p>
          <button type="submit">Add channel</button>
        </p>
      </form>
    </>
  );
}

export function ChannelPage(props: {
  viewer: Viewer;
  channel: ChannelView;
  deliveries: { items: DeliveryView[]; total: number };
  /** The message each listed delivery carries, as text, by delivery id. */
  previews: Map<string, string>;
  page: number;
  notice?: string;
  test?: ChannelTestResultView;
  error?: Problem;
}) {
  const { viewer, channel } = props;
  const write = can(viewer, "notifications:write");
  const pages = Math.max(1, Math.ceil(props.deliveries.total / CHANNEL_DELIVERIES_PER_PAGE));
  return (
    <>
      <p>
        <a href="/ui/channels">← Notifications</a>
      </p>
      <h1>{channel.name}</h1>
      <p>
        {KIND_LABELS[channel.kind]}: <code class="url">{channel.target}</code> <StatusBadge status={channel.active ? "active" : "inactive"} />
      </p>
      <p class="muted">
        Sends {WHEN_LABELS[channel.notify_when]} · for {domainsText(channel)} · created <Time iso={channel.created_at} />
        {channel.secrets_set.length > 0 && ` · secrets kept: ${channel.secrets_set.join(", ")}`}
        {channel.disabled_reason !== null && ` · switched off: ${channel.disabled_reason}`}
      </p>
      <Notice text={NOTICES[props.notice ?? ""]} />
      {props.error !== undefined && <FormError problem={props.error} />}
      {props.test !== undefined && (
        <p class={`notice ${props.test.delivered ? "success" : "error"}`} role="status" id="test-result">
          Test {props.test.delivered ? "delivered" : "failed"}
          {props.test.status_code !== null && `: HTTP ${props.test.status_code}`} in {props.test.duration_ms} ms
          {props.test.error !== null && ` (${props.test.error})`}
          {props.test.response !== "" && ` — the server answered: ${props.test.response}`}
        </p>
      )}
      {write && <TargetActions viewer={viewer} action={`/ui/channels/${channel.id}`} noun="channel" test="Send test" />}
      <DeliveryLog
        viewer={viewer}
        write={write}
        deliveries={props.deliveries}
        firstColumn="Message"
        first={(delivery) =>
          props.previews.has(delivery.id) ? (
            <details>
              <summary>{props.previews.get(delivery.id)!.split("\n", 1)[0]}</summary>
              <pre class="message-preview">{props.previews.get(delivery.id)}</pre>
            </details>
          ) : (
            <code>{delivery.event}</code>
          )
        }
        redeliver={(delivery) => `/ui/channels/${channel.id}/deliveries/${delivery.id}/redeliver`}
        page={props.page}
        pages={pages}
        pageHref={(page) => `/ui/channels/${channel.id}?page=${page}`}
      />
    </>
  );
}
