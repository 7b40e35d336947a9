/** @jsxImportSource hono/jsx */
import type { CrawlOptions } from "../../core/crawl-options.ts";
import type { DomainView } from "../../services/domain-view.ts";
import { nextRunOf, scheduleProblem } from "../../services/schedule.ts";
import { OPTION_LABELS } from "../crawl-option-fields.ts";
import type { Problem } from "../form-problem.ts";
import { can, type Viewer } from "../ui-env.ts";
import { FormError } from "./form-error.tsx";
import { Csrf } from "./layout.tsx";
import { Ago, ZonedTime } from "./local-time.tsx";

/**
 * The settings half of a domain's page, one panel per form: the start page, the schedule with its next runs
 * (previewed before saving), default options, ignore rules, and the way to delete the domain. A refused form
 * shows its reason in its own panel, with what was typed still in it.
 */

/** The forms of a domain's page, so a refusal is shown beside the form that was sent. */
export type DomainForm = "verify" | "crawl" | "root" | "schedule" | "options" | "rules";

/** What was typed into a refused form, shown again instead of the stored values. */
export interface DomainDraft {
  root_url?: string;
  cron?: string;
  timezone?: string;
  exclude?: string;
  mute?: string;
}

interface SettingsProps {
  viewer: Viewer;
  domain: DomainView;
  refused?: { form: DomainForm; problem: Problem };
  draft?: DomainDraft;
  preview?: { cron: string; timezone: string | null };
}

/** The error of `form`, when that form was the one refused. */
export function RefusedHere(props: { refused?: SettingsProps["refused"]; form: DomainForm }) {
  return props.refused?.form === props.form ? <FormError problem={props.refused.problem} /> : null;
}

/** The next `n` runs of a schedule, or null with the reason it cannot run. */
function nextRuns(cron: string, timezone: string | null, n = 5): { runs: string[]; problem: string | null } {
  const problem = scheduleProblem(cron, timezone);
  if (problem !== null) return { runs: [], problem };
  const runs: string[] = [];
  let from = new Date();
  for (let i = 0; i < n; i++) {
    const next = nextRunOf(cron, timezone, from);
    if (next === null) break;
    runs.push(next.toISOString());
    from = next;
  }
  return { runs, problem: null };
}

/** Every crawl option as a checkbox, ticked from `options`. */
export function OptionBoxes(props: { options: CrawlOptions | null; prefix: string }) {
  return (
    <div class="row">
      {OPTION_LABELS.map(([name, label]) => (
        <label class="check" for={`${props.prefix}-${name}`}>
          <input type="checkbox" id={`${props.prefix}-${name}`} name={name} value="on" checked={props.options?.[name] === true} />
          {label}
        </label>
      ))}
    </div>
  );
}

function StartPagePanel(props: SettingsProps) {
  const { viewer, domain } = props;
  if (!can(viewer, "domains:write")) return null;
  return (
    <section class="panel" aria-labelledby="start-page">
      <h2 id="start-page">Start page</h2>
      <p class="muted">Where crawls begin: any page on {domain.name}, over http or https. Paste the URL that works in your browser.</p>
      <RefusedHere refused={props.refused} form="root" />
      <form method="post" action={`/ui/domains/${domain.id}/root`}>
        <Csrf viewer={viewer} />
        <div class="row">
          <div class="grow">
            <label for="root-url">Start page URL</label>
            <input id="root-url" name="root_url" type="text" required value={props.draft?.root_url ?? domain.root_url} />
          </div>
          <button type="submit">Save start page</button>
        </div>
      </form>
    </section>
  );
}

function SchedulePanel(props: SettingsProps) {
  const { viewer, domain, preview, draft } = props;
  const shown = preview ?? (domain.schedule === null ? null : { cron: domain.schedule, timezone: domain.schedule_timezone });
  const runs = shown === null ? null : nextRuns(shown.cron, shown.timezone);
  return (
    <section class="panel" aria-labelledby="schedule">
      <h2 id="schedule">Schedule</h2>
      <p>
        {domain.schedule === null ? (
          "No schedule: crawls start only when someone starts one."
        ) : (
          <>
            Runs <code>{domain.schedule}</code> ({domain.schedule_timezone ?? "server time"}); next <Ago iso={domain.next_run_at} /> (
            <ZonedTime iso={domain.next_run_at ?? ""} zone={domain.schedule_timezone} />
            ).
          </>
        )}
      </p>
      {runs !== null && (
        <div aria-live="polite">
          {preview !== undefined && <h3>Preview of {preview.cron}</h3>}
          <p class="muted">
            {shown!.timezone === null ? "Next runs (server time, shown in your time zone):" : `Next runs, in the schedule's time zone ${shown!.timezone}:`}
          </p>
          {runs.problem !== null ? (
            <p class="notice error">{runs.problem}</p>
          ) : (
            <ol>
              {runs.runs.map((run) => (
                <li>
                  <ZonedTime iso={run} zone={shown!.timezone} />
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
      <RefusedHere refused={props.refused} form="schedule" />
      {can(viewer, "domains:write") && (
        <form method="post" action={`/ui/domains/${domain.id}/schedule`}>
          <Csrf viewer={viewer} />
          <div class="row">
            <div>
              <label for="cron">Cron expression</label>
              <input id="cron" name="cron" type="text" placeholder="0 3 * * *" value={draft?.cron ?? preview?.cron ?? domain.schedule ?? ""} />
            </div>
            <div>
              <label for="timezone">Time zone (IANA)</label>
              <input
                id="timezone"
                name="timezone"
                type="text"
                placeholder="Europe/Berlin"
                value={draft?.timezone ?? preview?.timezone ?? domain.schedule_timezone ?? ""}
              />
            </div>
            <button type="submit" name="action" value="preview" class="secondary">
              Preview
            </button>
            <button type="submit" name="action" value="set">
              Save schedule
            </button>
            {domain.schedule !== null && (
              <button type="submit" name="action" value="clear" class="secondary">
                Clear schedule
              </button>
            )}
          </div>
        </form>
      )}
    </section>
  );
}

function DefaultsPanel(props: SettingsProps) {
  const { viewer, domain } = props;
  return (
    <section class="panel" aria-labelledby="defaults">
      <h2 id="defaults">Default options</h2>
      <p class="muted">Used by scheduled crawls, and preselected when starting one here.</p>
      <RefusedHere refused={props.refused} form="options" />
      {can(viewer, "domains:write") ? (
        <form method="post" action={`/ui/domains/${domain.id}/options`}>
          <Csrf viewer={viewer} />
          <OptionBoxes options={domain.default_options} prefix="default" />
          <button type="submit">Save defaults</button>
        </form>
      ) : (
        <ul>
          {OPTION_LABELS.map(([name, label]) => (
            <li>
              {label}: {domain.default_options?.[name] === true ? "yes" : "no"}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function RuleList(props: { rules: string[] }) {
  if (props.rules.length === 0) return <span class="muted">none</span>;
  return (
    <ul>
      {props.rules.map((rule) => (
        <li>
          <code>{rule}</code>
        </li>
      ))}
    </ul>
  );
}

function IgnoreRulesPanel(props: SettingsProps) {
  const { viewer, domain, draft } = props;
  const rules = domain.ignore_rules;
  return (
    <section class="panel" aria-labelledby="ignore-rules">
      <h2 id="ignore-rules">Ignore rules</h2>
      <p class="muted">
        Regular expressions, one per line, searched anywhere in a link's URL, as <code>linkpatrol check --exclude</code> reads them: for example{" "}
        <code>^https://old\.example\.com/</code> or <code>\.pdf$</code>. They apply to crawls started from now on; a crawl keeps the rules it started with.
      </p>
      <RefusedHere refused={props.refused} form="rules" />
      {can(viewer, "domains:write") ? (
        <form method="post" action={`/ui/domains/${domain.id}/rules`}>
          <Csrf viewer={viewer} />
          <div class="row">
            <div class="grow">
              <label for="rules-exclude">Not checked (never fetched, not listed)</label>
              <textarea id="rules-exclude" name="exclude" rows={4} spellcheck={false}>
                {draft?.exclude ?? rules.exclude.join("\n")}
              </textarea>
            </div>
            <div class="grow">
              <label for="rules-mute">Checked, never counted broken (muted)</label>
              <textarea id="rules-mute" name="mute" rows={4} spellcheck={false}>
                {draft?.mute ?? rules.mute.join("\n")}
              </textarea>
            </div>
          </div>
          <button type="submit">Save ignore rules</button>
        </form>
      ) : (
        <>
          <h3>Not checked</h3>
          <RuleList rules={rules.exclude} />
          <h3>Never counted broken</h3>
          <RuleList rules={rules.mute} />
        </>
      )}
    </section>
  );
}

function DeletePanel(props: SettingsProps) {
  const { viewer, domain } = props;
  if (!can(viewer, "domains:write")) return null;
  return (
    <section class="panel" aria-labelledby="delete">
      <h2 id="delete">Delete this domain</h2>
      <p class="muted">Removes the domain with every crawl of it and all their results. You are asked to confirm first.</p>
      <a class="button danger" href={`/ui/domains/${domain.id}/delete`}>
        Delete domain…
      </a>
    </section>
  );
}

/** The settings panels of a domain's page, in order. */
export function DomainSettings(props: SettingsProps) {
  return (
    <>
      <StartPagePanel {...props} />
      <SchedulePanel {...props} />
      <DefaultsPanel {...props} />
      <IgnoreRulesPanel {...props} />
      <DeletePanel {...props} />
    </>
  );
}
