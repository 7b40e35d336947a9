import { expect, test } from "bun:test";
import { Counter, Histogram, Registry } from "../../src/metrics/registry.ts";

test("series are told apart by every label value, whatever the values contain", () => {
  const registry = new Registry();
  const counter = registry.add(new Counter("c_total", "help", ["a", "b"]));
  counter.inc({ a: "x", b: "y" });
  counter.inc({ a: "y", b: "x" });
  counter.inc({ a: "x,y", b: "" });
  counter.inc({ a: "x", b: ",y" });
  counter.inc({ b: "y", a: "x" }, 2);
  const lines = registry.render().split("\n");
  expect(lines).toContain('c_total{a="x",b="y"} 3');
  expect(lines).toContain('c_total{a="y",b="x"} 1');
  expect(lines).toContain('c_total{a="x,y",b=""} 1');
  expect(lines).toContain('c_total{a="x",b=",y"} 1');
  expect(lines.filter((line) => line.startsWith("c_total{"))).toHaveLength(4);
});

test("a histogram keeps one series per label set, labels in declared order, values escaped", () => {
  const registry = new Registry();
  const histogram = registry.add(new Histogram("h_seconds", "help", [0.1, 1], ["route", "status"]));
  histogram.observe({ status: "200", route: '/a"b' }, 0.05);
  histogram.observe({ route: '/a"b', status: "200" }, 0.5);
  histogram.observe({ route: '/a"b', status: "404" }, 5);
  const lines = registry.render().split("\n");
  expect(lines).toContain('h_seconds_bucket{route="/a\\"b",status="200",le="0.1"} 1');
  expect(lines).toContain('h_seconds_bucket{route="/a\\"b",status="200",le="1"} 2');
  expect(lines).toContain('h_seconds_count{route="/a\\"b",status="200"} 2');
  expect(lines).toContain('h_seconds_bucket{route="/a\\"b",status="404",le="+Inf"} 1');
  expect(lines).toContain('h_seconds_sum{route="/a\\"b",status="404"} 5');
});

test("a metric without labels has one series", () => {
  const registry = new Registry();
  const counter = registry.add(new Counter("plain_total", "help"));
  counter.inc({}, 0);
  counter.inc({}, 3);
  expect(registry.render()).toContain("\nplain_total 3\n");
});
