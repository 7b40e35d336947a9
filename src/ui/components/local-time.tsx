/** @jsxImportSource hono/jsx */
import { inZone, relative, when, whenToTheSecond } from "../format.ts";

/**
 * A `<time>` in UTC that says so, which assets/dashboard.client.js rewrites into the reader's zone. `data-local`:
 * `abs` (`abs-s`: to the second) rewrites text and title, `rel` only the title.
 */

/** An instant, "2026-11-25 14:31 UTC" (with `seconds`, 14:31:05) until the script shows it in the browser's zone; "—" for none. */
export function Time(props: { iso: string | null | undefined; seconds?: boolean }) {
  if (props.iso === null || props.iso === undefined) return <>—</>;
  const utc = props.seconds === true ? whenToTheSecond(props.iso) : when(props.iso);
  return (
    <time datetime={props.iso} data-local={props.seconds === true ? "abs-s" : "abs"} title={utc}>
      {utc}
    </time>
  );
}

/** "3 min ago" / "in 2 h", with the instant on hover (UTC, and the reader's zone once the script ran). */
export function Ago(props: { iso: string | null | undefined }) {
  if (props.iso === null || props.iso === undefined) return <>—</>;
  return (
    <time datetime={props.iso} data-local="rel" title={when(props.iso)}>
      {relative(props.iso)}
    </time>
  );
}

/**
 * An instant on the wall clock of `zone` (a schedule's own time zone), the zone named: "2026-11-30 03:00
 * Europe/Berlin"; the script leaves its text alone and only adds the reader's time to the UTC title. Without a
 * zone it is a plain `Time`.
 */
export function ZonedTime(props: { iso: string; zone: string | null }) {
  const local = props.zone === null ? null : inZone(props.iso, props.zone);
  if (local === null) return <Time iso={props.iso} />;
  return (
    <time datetime={props.iso} data-local="zoned" title={when(props.iso)}>
      {local} {props.zone}
    </time>
  );
}
