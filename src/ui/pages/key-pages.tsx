/** @jsxImportSource hono/jsx */
import { SCOPES } from "../../core/scopes.ts";
import type { ApiKeyView } from "../../services/keys.service.ts";
import type { Problem } from "../form-problem.ts";
import type { Viewer } from "../ui-env.ts";
import { FormError } from "../components/form-error.tsx";
import { Columns, Csrf, Notice, StatusBadge } from "../components/layout.tsx";
import { Time } from "../components/local-time.tsx";
import { ConfirmPage } from "../components/confirm-page.tsx";

/** The API keys page (admins only): every key, the form to create one (its secret shown once), revoke links. */

/** What each scope lets a key do, in words for the create form. */
const SCOPE_HINTS: Record<(typeof SCOPES)[number], string> = {
  "crawls:read": "read crawls and their links",
  "crawls:write": "start and cancel crawls",
  "domains:read": "read domains",
  "domains:write": "add, verify, change and delete domains",
  "webhooks:read": "read webhooks and deliveries",
  "webhooks:write": "add, test and delete webhooks",
  "notifications:read": "see notification channels and their deliveries",
  "notifications:write": "add, test and delete notification channels",
  "metrics:read": "read /metrics (nothing else)",
  admin: "everything, including these key pages",
};

const NOTICES: Record<string, string> = {
  revoked: "Key revoked: requests with it are refused from now on, and its dashboard sessions end.",
};

/** What was typed into a refused create form. */
interface KeyDraft {
  name: string;
  scopes: string[];
}

export function KeyList(props: {
  viewer: Viewer;
  keys: ApiKeyView[];
  notice?: string;
  error?: Problem;
  draft?: KeyDraft;
  created?: { key: ApiKeyView; secret: string };
}) {
  const { viewer } = props;
  return (
    <>
      <h1>API keys</h1>
      <Notice text={NOTICES[props.notice ?? ""]} />
      {props.created !== undefined && (
        <section class="notice success" aria-labelledby="new-key" role="status">
          <h2 id="new-key">Key {props.created.key.name} created</h2>
          <p>Copy it now: it is shown only this once (only a hash of it is stored). Scopes: {props.created.key.scopes.join(", ")}.</p>
          <p>
            API key:{" "}
            <code class="secret" id="new-key-secret">
              {props.created.secret}
            </code>
          </p>
        </section>
      )}
      <div class="table-wrap">
        <table>
          <Columns names={["Name", "Key starts", "Scopes", "Created|hide-narrow", "Last used|hide-narrow", "State"]} />
          <tbody>
            {props.keys.map((key) => (
              <tr>
                <td class="url">
                  {key.name}
                  {key.id === viewer.principal.keyId && <div class="muted">you are signed in with it</div>}
                </td>
                <td>
                  <code>lp_{key.prefix}…</code>
                </td>
                <td>{key.scopes.join(", ")}</td>
                <td class="hide-narrow">
                  <Time iso={key.created_at} />
                </td>
                <td class="hide-narrow">{key.last_used_at === null ? <span class="muted">never</span> : <Time iso={key.last_used_at} />}</td>
                <td>
                  {key.revoked_at === null ? (
                    <a class="button secondary" href={`/ui/keys/${key.id}/revoke`} aria-label={`Revoke ${key.name}`}>
                      Revoke…
                    </a>
                  ) : (
                    <>
                      <StatusBadge status="revoked" />{" "}
                      <span class="muted">
                        <Time iso={key.revoked_at} />
                      </span>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <section class="panel" aria-labelledby="create-key">
        <h2 id="create-key">Create a key</h2>
        {props.error !== undefined && <FormError problem={props.error} />}
        <form method="post" action="/ui/keys">
          <Csrf viewer={viewer} />
          <div class="row">
            <div class="grow">
              <label for="key-name">Name</label>
              <input id="key-name" name="name" type="text" required maxlength={100} placeholder="ci-pipeline" value={props.draft?.name ?? ""} />
            </div>
          </div>
          <fieldset>
            <legend>Scopes (at least one)</legend>
            {SCOPES.map((scope) => (
              <label class="check" for={`scope-${scope}`}>
                <input type="checkbox" id={`scope-${scope}`} name="scopes" value={scope} checked={props.draft?.scopes.includes(scope) === true} />
                <code>{scope}</code> <span class="muted">{SCOPE_HINTS[scope]}</span>
              </label>
            ))}
          </fieldset>
          <p>
            <button type="submit">Create key</button>
          </p>
        </form>
      </section>
    </>
  );
}

/** The confirmation of a key's revocation; revoking one's own key signs one out, and it says so. */
export function RevokeKeyPage(props: { viewer: Viewer; apiKey: ApiKeyView }) {
  const key = props.apiKey;
  return (
    <ConfirmPage viewer={props.viewer} title={`Revoke the key ${key.name}?`} action={`/ui/keys/${key.id}/revoke`} button="Revoke key" back="/ui/keys">
      <p>
        Requests with the key <code>lp_{key.prefix}…</code> ({key.scopes.join(", ")}), created <Time iso={key.created_at} />, are refused from the moment it is
        revoked. It cannot be undone.
      </p>
      {key.id === props.viewer.principal.keyId && (
        <p class="notice error" role="alert">
          This is the key you are signed in with: revoking it signs you out.
        </p>
      )}
    </ConfirmPage>
  );
}
