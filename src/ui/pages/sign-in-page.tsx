/** @jsxImportSource hono/jsx */

/** The sign-in form: an API key, a token bound to the sign-in cookie, and where to go after. */
export function SignInPage(props: { token: string; next: string; error?: string }) {
  return (
    <div class="sign-in">
      <h1>Sign in</h1>
      <p>
        Paste an API key. The first start of the service printed one (or create one with <code>linkpatrol keys create</code>).
      </p>
      {props.error !== undefined && (
        <p class="notice error" role="alert">
          {props.error}
        </p>
      )}
      <form method="post" action="/ui/sign-in">
        <input type="hidden" name="_token" value={props.token} />
        <input type="hidden" name="next" value={props.next} />
        <label for="key">API key</label>
        <input id="key" name="key" type="password" autocomplete="current-password" required spellcheck={false} placeholder="lp_…" />
        <p>
          <button type="submit">Sign in</button>
        </p>
      </form>
      <p class="muted">The session lasts 12 hours, ends when you sign out or when the key is revoked.</p>
    </div>
  );
}
