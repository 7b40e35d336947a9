/**
 * The /docs page: plain HTML and a little script that renders the served OpenAPI document
 * (operations, parameters, request and response schemas). Self-contained on purpose.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>linkpatrol API</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 960px; padding: 1rem 1.5rem; color: #1b1f24; }
  h1 { margin-bottom: 0; } .sub { color: #57606a; margin-top: .2rem; }
  details.op { border: 1px solid #d0d7de; border-radius: 6px; margin: .8rem 0; }
  details.op > summary { cursor: pointer; padding: .5rem .8rem; list-style: none; }
  .m { display: inline-block; min-width: 4.2rem; font-weight: 700; text-transform: uppercase; }
  .get { color: #0969da; } .post { color: #1a7f37; } .patch { color: #9a6700; } .delete { color: #cf222e; }
  code, pre { font: 13px ui-monospace, monospace; } pre { background: #f6f8fa; padding: .6rem; overflow: auto; border-radius: 4px; }
  .body { padding: 0 .8rem .8rem; } table { border-collapse: collapse; } td, th { text-align: left; padding: .15rem .6rem .15rem 0; }
</style>
</head>
<body>
<h1>linkpatrol API</h1>
<p class="sub">Rendered from <a href="__OPENAPI_URL__"><code>__OPENAPI_URL__</code></a>. Authenticate with <code>Authorization: Bearer lp_…</code>.</p>
<div id="ops">Loading…</div>
<script>
(async () => {
  const doc = await (await fetch("__OPENAPI_URL__")).json();
  const schemas = (doc.components && doc.components.schemas) || {};
  const resolve = (s) => (s && s.$ref ? schemas[s.$ref.split("/").pop()] : s);
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    Object.assign(e, attrs || {});
    kids.flat().forEach((k) => e.append(k instanceof Node ? k : String(k)));
    return e;
  };
  const example = (s, depth = 0) => {
    s = resolve(s);
    if (!s || depth > 6) return null;
    if (s.example !== undefined) return s.example;
    if (s.anyOf || s.oneOf) return example((s.anyOf || s.oneOf)[0], depth + 1);
    if (s.type === "object" || s.properties) {
      const o = {};
      for (const [k, v] of Object.entries(s.properties || {})) o[k] = example(v, depth + 1);
      return o;
    }
    if (s.type === "array") return [example(s.items, depth + 1)];
    if (s.enum) return s.enum[0];
    const t = Array.isArray(s.type) ? s.type[0] : s.type;
    return { string: "string", integer: 0, number: 0, boolean: false, null: null }[t] ?? null;
  };
  const root = document.getElementById("ops");
  root.textContent = "";
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const [method, op] of Object.entries(item)) {
      const body = el("div", { className: "body" });
      if (op.parameters && op.parameters.length) {
        body.append(el("h4", {}, "Parameters"), el("table", {}, op.parameters.map((p) =>
          el("tr", {}, el("td", {}, el("code", {}, p.name)), el("td", {}, p.in), el("td", {}, JSON.stringify((p.schema || {}).type || "")), el("td", {}, p.required ? "required" : "")))));
      }
      const req = op.requestBody && op.requestBody.content && op.requestBody.content["application/json"];
      if (req) body.append(el("h4", {}, "Request body"), el("pre", {}, JSON.stringify(example(req.schema), null, 2)));
      body.append(el("h4", {}, "Responses"));
      for (const [status, r] of Object.entries(op.responses || {})) {
        const c = r.content && r.content["application/json"];
        body.append(el("p", {}, el("b", {}, status + " "), r.description || ""));
        if (c && +status < 300) body.append(el("pre", {}, JSON.stringify(example(c.schema), null, 2)));
      }
      const summary = el("summary", {}, el("span", { className: "m " + method }, method), " ", el("code", {}, path), " — ", op.summary || "");
      root.append(el("details", { className: "op" }, summary, body));
    }
  }
})().catch((e) => { document.getElementById("ops").textContent = "Could not load the API document: " + e; });
</script>
</body>
</html>
`;
