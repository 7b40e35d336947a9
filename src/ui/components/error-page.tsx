/** @jsxImportSource hono/jsx */
import { Layout } from "./layout.tsx";
import type { Viewer } from "../ui-env.ts";

/** A refused or failed dashboard request, as a page (the API's JSON envelope is for programs). */
export function ErrorPage(props: { viewer: Viewer | null; status: number; message: string }) {
  const title =
    props.status === 403 ? "Not allowed" : props.status === 404 ? "Not found" : props.status === 429 ? "Too many requests" : props.status >= 500 ? "Something went wrong" : "Request refused";
  return (
    <Layout title={title} viewer={props.viewer}>
      <h1>{title}</h1>
      <p class="notice error" role="alert">
        {props.message}
      </p>
      <p>
        <a href="/">Back to the overview</a>
      </p>
    </Layout>
  );
}
