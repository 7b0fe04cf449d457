// Opens neardup's HTML reports in Debian's Chromium (headless, no background networking) through
// playwright-core and checks what a reader relies on: no console errors and no request leaving
// the file, every SVG figure drawn with a size, a sortable table sorting both ways by value, the
// filter hiding the rows that do not match, and the page still holding its tables without
// JavaScript. Saves a full-page screenshot of each report.
//
// Crawl text must stay text: no dialog opens, nothing sets `window.__pwned` (what the hostile
// fixtures' scripts do), no request goes anywhere but the report itself (not even another
// file), no link or element attribute runs script (`javascript:` links, `on...=` handlers),
// no bidirectional override or isolate character is in the page's text. With
// NEARDUP_EXPECT_TEXT (JSON: {"REPORT.html as given": [strings]}), each string must be in that
// page's visible text.
//
//   node tests/browser/check_reports.mjs SCREENSHOT_DIR REPORT.html...
//
// Prints one JSON line per report ({report, ok, problems, load_ms, svgs, tables, sorted,
// filtered, screenshot}) and exits 1 when any report has a problem.

import { createRequire } from "node:module";
import path from "node:path";
import fs from "node:fs";
import { pathToFileURL } from "node:url";

const require = createRequire(
  path.resolve(process.env.NEARDUP_BROWSER_DIR || "target/browser", "package.json"),
);
const { chromium } = require("playwright-core");

const [shots, ...reports] = process.argv.slice(2);
if (!shots || reports.length === 0) {
  console.error("usage: check_reports.mjs SCREENSHOT_DIR REPORT.html...");
  process.exit(2);
}
fs.mkdirSync(shots, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

let failed = false;
for (const report of reports) {
  const problems = [];
  const url = pathToFileURL(path.resolve(report)).href;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    if (r.url() !== url && !r.url().startsWith("data:")) problems.push(`request: ${r.url()}`);
  });
  page.on("dialog", async (d) => {
    problems.push(`dialog ${d.type()}: ${d.message()}`);
    await d.dismiss();
  });
  const t0 = Date.now();
  await page.goto(url, { waitUntil: "load" });
  const load_ms = Date.now() - t0;

  // Crawl text stays text.
  const hostile = await page.evaluate(() => {
    const found = [];
    if (window.__pwned !== undefined) found.push(`window.__pwned = ${window.__pwned}`);
    for (const el of document.querySelectorAll("*")) {
      for (const a of el.attributes) {
        if (/^on/i.test(a.name)) found.push(`<${el.tagName} ${a.name}>`);
        if (/^\s*(javascript|vbscript|data):/i.test(a.value) && /^(href|src|action|xlink:href)$/i.test(a.name))
          found.push(`<${el.tagName} ${a.name}="${a.value.slice(0, 40)}">`);
      }
    }
    for (const tag of ["iframe", "object", "embed", "img", "form", "base", "meta[http-equiv=refresh]"])
      if (document.querySelector(tag)) found.push(`a <${tag}> element`);
    if (document.scripts.length !== 1) found.push(`${document.scripts.length} script elements`);
    if (/[\u202A-\u202E\u2066-\u2069]/.test(document.body.innerText)) found.push("a bidirectional control in the text");
    return found;
  });
  hostile.forEach((h) => problems.push(`crawl text not inert: ${h}`));
  const expected = JSON.parse(process.env.NEARDUP_EXPECT_TEXT || "{}")[report] || [];
  if (expected.length > 0) {
    const text = await page.evaluate(() => document.body.innerText);
    expected.forEach((e) => {
      if (!text.includes(e)) problems.push(`not shown as text: ${JSON.stringify(e)}`);
    });
  }

  const svgs = await page.$$eval("svg", (els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return [r.width, r.height];
    }),
  );
  svgs.forEach(([w, h], i) => {
    if (!(w > 0 && h > 0)) problems.push(`svg ${i} drawn at ${w} x ${h}`);
  });
  const tables = await page.$$eval("table.data", (ts) => ts.length);

  // Sorting: the first table with three or more rows and a numeric column.
  const target = await page.evaluate(() => {
    const ts = Array.from(document.querySelectorAll("table.data"));
    for (let t = 0; t < ts.length; t++) {
      const heads = Array.from(ts[t].tHead.rows[0].cells);
      const col = heads.findIndex((h) => h.classList.contains("n"));
      const rows = ts[t].tBodies[0].rows;
      if (col >= 0 && rows.length >= 3) {
        const vals = Array.from(rows).map((r) => r.cells[col].getAttribute("data-v"));
        if (new Set(vals).size >= 2) return { t, col };
      }
    }
    return null;
  });
  let sorted = null;
  if (target) {
    const values = () =>
      page.evaluate(({ t, col }) => {
        const table = document.querySelectorAll("table.data")[t];
        return Array.from(table.tBodies[0].rows).map((r) => {
          const n = parseFloat(r.cells[col].getAttribute("data-v"));
          return isNaN(n) ? -Infinity : n;
        });
      }, target);
    const button = page.locator("table.data").nth(target.t).locator("thead th").nth(target.col).locator("button");
    await button.click();
    const up = await values();
    await button.click();
    const down = await values();
    const ascending = up.every((v, i) => i === 0 || up[i - 1] <= v);
    const descending = down.every((v, i) => i === 0 || down[i - 1] >= v);
    const sort = await page
      .locator("table.data")
      .nth(target.t)
      .locator("thead th")
      .nth(target.col)
      .getAttribute("aria-sort");
    if (!ascending) problems.push(`table ${target.t} column ${target.col} not ascending after one click`);
    if (!descending || sort !== "descending") problems.push(`table ${target.t} column ${target.col} not descending after two clicks`);
    sorted = { table: target.t, column: target.col, rows: up.length };
  } else {
    problems.push("no table to sort");
  }

  // Filtering: the first filter box, with the text of its table's first row's first cell.
  let filtered = null;
  const boxes = await page.locator("input.filter").count();
  if (boxes > 0) {
    const box = page.locator("input.filter").first();
    const query = await page.evaluate(() => {
      const f = document.querySelector("input.filter");
      const t = f.nextElementSibling.querySelector("table");
      return t.tBodies[0].rows[0].cells[0].textContent.trim().slice(0, 40);
    });
    await box.fill(query);
    const counts = await page.evaluate((q) => {
      const f = document.querySelector("input.filter");
      const rows = Array.from(f.nextElementSibling.querySelector("table").tBodies[0].rows);
      const shown = rows.filter((r) => !r.hidden);
      return {
        all: rows.length,
        shown: shown.length,
        wrong: shown.filter((r) => !r.textContent.toLowerCase().includes(q.toLowerCase())).length,
      };
    }, query);
    if (counts.shown === 0 || counts.wrong > 0) problems.push(`filter ${JSON.stringify(query)}: ${JSON.stringify(counts)}`);
    await box.fill("");
    filtered = { query, ...counts };
  }

  const name = path.basename(path.dirname(path.resolve(report)));
  const screenshot = path.join(shots, `${name}.png`);
  await page.screenshot({ path: screenshot, fullPage: true });
  await context.close();

  // Without JavaScript: the same tables and figures, as plain HTML.
  const plain = await browser.newContext({ javaScriptEnabled: false });
  const p2 = await plain.newPage();
  await p2.goto(url, { waitUntil: "load" });
  const plainTables = await p2.$$eval("table", (ts) => ts.length);
  if (plainTables !== tables) problems.push(`${plainTables} tables without JavaScript, ${tables} with`);
  await plain.close();

  const ok = problems.length === 0;
  failed ||= !ok;
  console.log(JSON.stringify({ report, ok, problems, load_ms, svgs: svgs.length, tables, sorted, filtered, screenshot }));
}
await browser.close();
process.exit(failed ? 1 : 0);
