/** @jsxImportSource hono/jsx */
import type { ErrorDetail } from "../../core/errors.ts";

/** Why a form was refused, with each detail the service gave (a field or a verification method and its reason). */
export function FormError(props: { message: string; details?: ErrorDetail[] }) {
  return (
    <div class="notice error" role="alert">
      <p>{props.message}</p>
      {props.details !== undefined && props.details.length > 0 && (
        <ul>
          {props.details.map((detail) => (
            <li>
              {Object.entries(detail)
                .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
                .join(" — ")}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
