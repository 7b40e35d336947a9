/** @jsxImportSource hono/jsx */
import type { DeliveryView } from "../../services/webhook-view.ts";
import { Time } from "./local-time.tsx";

/** A delivery's attempts, folded: when, what came back, how long. */
export function Attempts(props: { delivery: DeliveryView }) {
  if (props.delivery.attempts.length === 0) return <span class="muted">no attempt yet</span>;
  return (
    <details>
      <summary>
        {props.delivery.attempts.length} attempt{props.delivery.attempts.length === 1 ? "" : "s"}
      </summary>
      <ol>
        {props.delivery.attempts.map((attempt) => (
          <li>
            <Time iso={attempt.attempted_at} />: {attempt.status_code === null ? (attempt.error ?? "accepted") : `HTTP ${attempt.status_code}`} in {attempt.duration_ms} ms
            {attempt.response_body !== "" && <pre>{attempt.response_body}</pre>}
          </li>
        ))}
      </ol>
    </details>
  );
}
