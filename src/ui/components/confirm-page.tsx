/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { Viewer } from "../ui-env.ts";
import { Csrf } from "./layout.tsx";

/**
 * The body of an "Are you sure?" page, for what cannot be undone (deleting a domain with its history, revoking
 * a key): it says what will go, and only its form's POST does it. Works without JavaScript; Cancel goes back.
 */
export function ConfirmPage(props: { viewer: Viewer; title: string; action: string; button: string; back: string; children?: Child }) {
  return (
    <>
      <h1>{props.title}</h1>
      {props.children}
      <form method="post" action={props.action}>
        <Csrf viewer={props.viewer} />
        <div class="row">
          <button type="submit" class="danger">
            {props.button}
          </button>
          <a class="button secondary" href={props.back}>
            Cancel
          </a>
        </div>
      </form>
    </>
  );
}
