/** @jsxImportSource hono/jsx */
import type { HostSummaryRecord } from "../../services/crawl-results.ts";
import { count } from "../format.ts";
import { Columns } from "./layout.tsx";

/**
 * The listing's targets by host: one row per host with its targets and the links to them, the host a link
 * that filters the listing to it (one dead external host is one row here, whatever its thousands of targets).
 */
export function HostSummary(props: {
  hosts: { items: HostSummaryRecord[]; total: number };
  selected: string | undefined;
  href: (host: string) => string;
  clear: string;
}) {
  const { hosts } = props;
  if (hosts.items.length === 0) return null;
  return (
    <details class="host-summary" open={hosts.total > 1 || props.selected !== undefined}>
      <summary>
        By host: {count(hosts.total)} host{hosts.total === 1 ? "" : "s"}
        {props.selected !== undefined && (
          <>
            {" "}
            · showing <code>{props.selected}</code> only (<a href={props.clear}>all hosts</a>)
          </>
        )}
      </summary>
      <div class="table-wrap">
        <table id="hosts">
          <Columns names={["Host", "Targets|num", "Links|num"]} />
          <tbody>
            {hosts.items.map((host) => (
              <tr class="host-row">
                <td>
                  {host.host === props.selected || host.host === "" ? (
                    <strong>{host.host === "" ? "(no host)" : host.host}</strong>
                  ) : (
                    <a href={props.href(host.host)}>{host.host === "" ? "(no host)" : host.host}</a>
                  )}
                </td>
                <td class="num">{count(host.targets)}</td>
                <td class="num">{count(host.links)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {hosts.total > hosts.items.length && (
        <p class="muted">
          The {count(hosts.items.length)} hosts with the most targets; {count(hosts.total - hosts.items.length)} more: type one in the host filter.
        </p>
      )}
    </details>
  );
}
