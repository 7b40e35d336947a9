/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { DeliveryView } from "../../services/webhook-view.ts";
import { count } from "../format.ts";
import type { Viewer } from "../ui-env.ts";
import { Columns, Csrf, StatusBadge } from "./layout.tsx";
import { Time } from "./local-time.tsx";
import { PageLinks } from "./page-links.tsx";

/** A delivery's attempts, folded: when, what came back, how long. */
function Attempts(props: { delivery: DeliveryView }) {
  if (props.delivery.attempts.length === 0) return <span class="muted">no attempt yet</span>;
  return (
    <details>
      <summary>
        {props.delivery.attempts.length} attempt{props.delivery.attempts.length === 1 ? "" : "s"}
      </summary>
      <ol>
        {props.delivery.attempts.map((attempt) => (
          <li>
            <Time iso={attempt.attempted_at} />: {attempt.status_code === null ? (attempt.error ?? "accepted") : `HTTP ${attempt.status_code}`} in{" "}
            {attempt.duration_ms} ms
            {attempt.response_body !== "" && <pre>{attempt.response_body}</pre>}
          </li>
        ))}
      </ol>
    </details>
  );
}

/** A webhook's or a channel's test and delete buttons (under `action`), for a key that may write. */
export function TargetActions(props: { viewer: Viewer; action: string; noun: string; test: string }) {
  return (
    <div class="row">
      <form method="post" action={`${props.action}/test`}>
        <Csrf viewer={props.viewer} />
        <button type="submit">{props.test}</button>
      </form>
      <form method="post" action={`${props.action}/delete`} data-confirm={`Delete this ${props.noun} and its pending deliveries?`}>
        <Csrf viewer={props.viewer} />
        <button type="submit" class="danger">
          Delete {props.noun}
        </button>
      </form>
    </div>
  );
}

/**
 * The delivery log of a webhook or a notification channel (one outbox, one log): each delivery's first cell is
 * the owner's (`firstColumn`/`first`), then its state, creation, attempts and, for a key that may write, redeliver.
 */
export function DeliveryLog(props: {
  viewer: Viewer;
  write: boolean;
  deliveries: { items: DeliveryView[]; total: number };
  firstColumn: string;
  first: (delivery: DeliveryView) => Child;
  /** Where a delivery's redeliver form posts. */
  redeliver: (delivery: DeliveryView) => string;
  page: number;
  pages: number;
  pageHref: (page: number) => string;
}) {
  const { viewer, write } = props;
  return (
    <>
      <h2>Deliveries</h2>
      <p class="muted">{count(props.deliveries.total)} in all, newest first.</p>
      {props.deliveries.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <Columns names={[props.firstColumn, "State", "Created", "Attempts", ...(write ? ["Action"] : [])]} />
            <tbody>
              {props.deliveries.items.map((delivery) => (
                <tr>
                  <td>{props.first(delivery)}</td>
                  <td>
                    <StatusBadge status={delivery.state} />
                    {delivery.state === "pending" && delivery.next_attempt_at !== null && (
                      <div class="muted">
                        next <Time iso={delivery.next_attempt_at} />
                      </div>
                    )}
                  </td>
                  <td>
                    <Time iso={delivery.created_at} />
                  </td>
                  <td>
                    <Attempts delivery={delivery} />
                  </td>
                  {write && (
                    <td>
                      {delivery.state !== "pending" && (
                        <form method="post" action={props.redeliver(delivery)}>
                          <Csrf viewer={viewer} />
                          <button type="submit" class="secondary">
                            Redeliver
                          </button>
                        </form>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <PageLinks label="Delivery pages" page={props.page} pages={props.pages} href={props.pageHref} before="Newer" after="Older" />
    </>
  );
}
