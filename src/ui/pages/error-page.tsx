/** @jsxImportSource hono/jsx */

/** The error page's title (and heading) for `status`. */
export function errorTitle(status: number): string {
  return status === 403
    ? "Not allowed"
    : status === 404
      ? "Not found"
      : status === 429
        ? "Too many requests"
        : status >= 500
          ? "Something went wrong"
          : "Request refused";
}

/** A refused or failed dashboard request, as a page (the API's JSON envelope is for programs). */
export function ErrorPage(props: { status: number; message: string }) {
  return (
    <>
      <h1>{errorTitle(props.status)}</h1>
      <p class="notice error" role="alert">
        {props.message}
      </p>
      <p>
        <a href="/">Back to the overview</a>
      </p>
    </>
  );
}
