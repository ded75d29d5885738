import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /ledgers/{ledger}/dashboard`: one self-contained HTML page (inline CSS and plain
/// JavaScript, no external asset) that asks for a read key and then shows the ledger's net
/// worth over time, this month's budget, its envelopes, each wealth account's split and the
/// latest notifications, refreshed live from the event stream (docs/service.md, Dashboard).
///
/// The page holds no data, so serving it needs no key; every figure is fetched by the page
/// from the read routes with the key the user types, sent only in `Authorization` (never in
/// a URL) and kept in the tab's `sessionStorage`. A `Content-Security-Policy` allows only the
/// page's own script and style (by hash) and requests to this server.
enum DashboardRoutes {
    static let route = ServiceRoute(method: .get, path: "/ledgers/{ledger}/dashboard", operationId: "getDashboard", security: .none)

    /// Serves the page of the ledger in the path. A malformed ledger id is 404; whether the
    /// ledger exists is not told (the page's first read, with a key, tells).
    static func handle(_ call: Call) async throws -> Response {
        let ledger = try call.ledger
        do { try LedgerPool.validate(id: ledger) } catch {
            throw Problem(.notFound, "not_found", "no ledger '\(ledger)': a ledger id is lower-case letters, digits and dashes")
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page(ledger: ledger))))
    }

    /// Only the page's own style and script, and requests to this origin.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src '\(hash(script))'", "style-src '\(hash(style))'", "connect-src 'self'",
        "img-src 'self' data:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    /// A CSP source for an inline element's exact text.
    static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString()
    }

    /// The page for `ledger` (already validated: lower-case letters, digits and dashes, so it
    /// needs no escaping; escaped all the same).
    static func page(ledger: String) -> String {
        let id = escaped(ledger)
        return """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="tally-ledger" content="\(id)">
        <title>Tally dashboard: \(id)</title>
        <style>\(style)</style>
        </head>
        <body data-state="locked">
        <a class="skip" href="#main">Skip to the dashboard</a>
        <header><h1>Tally dashboard <span class="ledger">\(id)</span></h1><p id="as-of" class="muted"></p></header>
        <main id="main" tabindex="-1">
        <noscript><p class="notice">This dashboard needs JavaScript to ask for a key and fetch the figures; nothing here works without it. The same figures are served as JSON under <code>/ledgers/\(id)/</code> (net-worth, budgets/overview, envelopes, wealth/ACCOUNT, notifications) with an <code>Authorization: Bearer</code> key.</p></noscript>
        <section id="unlock" aria-labelledby="unlock-title">
        <h2 id="unlock-title">Open the dashboard</h2>
        <form id="key-form" novalidate>
        <label for="key">Read key of this ledger</label>
        <input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required aria-describedby="key-help key-error">
        <p id="key-help" class="muted">A key with the read scope. It is sent only to this server, in the Authorization header, and kept in this tab only until you close it or choose Forget key.</p>
        <button type="submit">Open</button>
        <p id="key-error" class="error" role="alert"></p>
        </form>
        </section>
        <div id="board" hidden>
        <div class="bar"><p id="status" role="status" aria-live="polite" aria-atomic="true"></p><button type="button" id="forget">Forget key</button></div>
        <section aria-labelledby="networth-title">
        <h2 id="networth-title" tabindex="-1">Net worth</h2>
        <p class="figure" id="net-worth" aria-live="polite"></p>
        <p class="muted" id="net-worth-parts"></p>
        <div id="net-worth-chart" class="chart"></div>
        </section>
        <section aria-labelledby="budget-title">
        <h2 id="budget-title">This month&#39;s budget</h2>
        <dl id="budget-overview" class="pairs"></dl>
        <table id="budget-table"><caption>Spent beside each budget&#39;s maximum</caption><thead><tr><th scope="col">Category</th><th scope="col" class="num">Spent</th><th scope="col" class="num">Maximum</th><th scope="col" class="num">Left</th></tr></thead><tbody></tbody></table>
        </section>
        <section aria-labelledby="envelopes-title">
        <h2 id="envelopes-title">Envelopes</h2>
        <table id="envelopes-table"><caption>This period of each envelope</caption><thead><tr><th scope="col">Envelope</th><th scope="col">Period</th><th scope="col" class="num">Available</th><th scope="col" class="num">Spent</th><th scope="col" class="num">Remaining</th></tr></thead><tbody></tbody></table>
        </section>
        <section aria-labelledby="wealth-title">
        <h2 id="wealth-title">Wealth account</h2>
        <div id="wealth"></div>
        </section>
        <section aria-labelledby="notifications-title">
        <h2 id="notifications-title">Latest notifications</h2>
        <ol id="notifications" aria-live="polite" aria-relevant="additions text"></ol>
        </section>
        </div>
        </main>
        <script>\(script)</script>
        </body>
        </html>
        """
    }

    /// Text for HTML content and attribute values.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    /// Colours: text #1b1b1b and #4a4a4a on #ffffff (16.9:1 and 8.9:1), links and buttons
    /// #0b4f8a (8.3:1; white on it likewise), errors #a1000e (8.6:1), the focus ring #8a4500.
    static let style = """
    :root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.45;color:#1b1b1b;background:#ffffff}
    body{margin:0 auto;max-width:72rem;padding:0 1rem 2rem}
    h1{font-size:1.5rem;margin:1rem 0 .25rem}h1 .ledger{font-weight:normal;color:#4a4a4a}
    h2{font-size:1.15rem;margin:0 0 .5rem}
    section{border:1px solid #8c8c8c;border-radius:6px;padding:1rem;margin:1rem 0;background:#ffffff}
    .muted{color:#4a4a4a}.error{color:#a1000e;font-weight:600}
    .figure{font-size:2rem;font-weight:700;margin:.25rem 0}
    .notice{border-left:4px solid #0b4f8a;padding:.5rem 1rem;background:#eef3f8}
    label{display:block;font-weight:600;margin:.5rem 0 .25rem}
    input{font:inherit;padding:.4rem;border:2px solid #4a4a4a;border-radius:4px;width:min(32rem,100%);box-sizing:border-box;color:#1b1b1b;background:#ffffff}
    button{font:inherit;padding:.4rem 1rem;border:2px solid #0b4f8a;border-radius:4px;background:#0b4f8a;color:#ffffff;cursor:pointer;margin-top:.5rem}
    button.secondary,#forget{background:#ffffff;color:#0b4f8a}
    a{color:#0b4f8a}
    :focus-visible{outline:3px solid #8a4500;outline-offset:2px}
    .skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#ffffff;padding:.5rem}
    .bar{display:flex;justify-content:space-between;align-items:center;gap:1rem;flex-wrap:wrap}
    table{border-collapse:collapse;width:100%}caption{text-align:left;color:#4a4a4a;margin-bottom:.25rem}
    th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #c4c4c4}.num{text-align:right;font-variant-numeric:tabular-nums}
    tr.over td{color:#a1000e;font-weight:600}
    dl.pairs{display:grid;grid-template-columns:max-content max-content;gap:.1rem 1.5rem;margin:0 0 .75rem}dl.pairs dt{color:#4a4a4a}dl.pairs dd{margin:0;font-variant-numeric:tabular-nums}
    .chart svg{max-width:100%;height:auto}
    ol#notifications{padding-left:1.25rem}ol#notifications li{margin:.35rem 0}ol#notifications .when{color:#4a4a4a;font-size:.9rem;display:block}
    """

    /// The page's behaviour: the key, the reads, the live stream. Every figure is put in the
    /// page as text (`textContent`), never as markup; the one markup taken is the server's
    /// chart SVG, parsed as XML and stripped of anything but drawing elements and attributes.
    static let script = #"""
    "use strict";
    (function () {
      const ledger = document.querySelector('meta[name="tally-ledger"]').content;
      const base = "/ledgers/" + encodeURIComponent(ledger);
      const storageKey = "tally-dashboard-key:" + ledger;
      const asOf = new URLSearchParams(location.search).get("as_of");
      const $ = (id) => document.getElementById(id);
      let key = sessionStorage.getItem(storageKey);
      let stream = null;
      let refreshTimer = null;
      let lastEvent = 0;

      class Refused extends Error { constructor(status, message) { super(message); this.status = status; } }

      function query(path) {
        if (!asOf) return path;
        return path + (path.includes("?") ? "&" : "?") + "as_of=" + encodeURIComponent(asOf);
      }

      async function api(path, accept) {
        const response = await fetch(base + query(path), { headers: { "Authorization": "Bearer " + key, "Accept": accept || "application/json" }, cache: "no-store" });
        if (!response.ok) {
          let detail = response.status + " " + response.statusText;
          try { const problem = await response.json(); if (problem.detail) detail = problem.detail; } catch (_) {}
          throw new Refused(response.status, detail);
        }
        return accept === "image/svg+xml" ? response.text() : response.json();
      }

      // An exact decimal string grouped by thousands, with its currency: no floating point.
      function money(text, currency) {
        if (text === null || text === undefined) return "—";
        const negative = text.startsWith("-");
        const [whole, fraction] = (negative ? text.slice(1) : text).split(".");
        const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
        return (negative ? "−" : "") + grouped + (fraction !== undefined ? "." + fraction : "") + (currency ? " " + currency : "");
      }

      function cell(row, text, numeric) {
        const td = document.createElement("td");
        td.textContent = text;
        if (numeric) td.className = "num";
        row.appendChild(td);
        return td;
      }

      function pairs(list, entries) {
        list.replaceChildren();
        for (const [term, value] of entries) {
          const dt = document.createElement("dt"); dt.textContent = term;
          const dd = document.createElement("dd"); dd.textContent = value;
          list.append(dt, dd);
        }
      }

      function emptyRow(body, columns, text) {
        const row = body.insertRow();
        const td = cell(row, text);
        td.colSpan = columns;
      }

      function failed(element, error) {
        const p = document.createElement("p");
        p.className = "error";
        p.textContent = "Could not load: " + error.message;
        element.replaceChildren(p);
      }

      // The chart's SVG, kept to drawing elements and plain attributes (no script, no links, no events).
      const drawing = new Set(["svg", "g", "title", "desc", "text", "tspan", "rect", "circle", "line", "polyline", "polygon", "path"]);
      function cleanSVG(text) {
        const doc = new DOMParser().parseFromString(text, "image/svg+xml");
        const root = doc.documentElement;
        if (root.nodeName !== "svg" || doc.getElementsByTagName("parsererror").length) throw new Error("the chart is not an SVG document");
        const walk = (node) => {
          for (const child of Array.from(node.children)) {
            if (!drawing.has(child.localName)) { child.remove(); continue; }
            for (const attribute of Array.from(child.attributes)) {
              const name = attribute.name.toLowerCase();
              if (name.startsWith("on") || name.includes("href") || name === "style") child.removeAttribute(attribute.name);
            }
            walk(child);
          }
        };
        walk(doc);
        return document.importNode(root, true);
      }

      async function loadNetWorth() {
        try {
          const report = await api("/net-worth");
          $("net-worth").textContent = money(report.net_worth, report.base_currency);
          $("net-worth-parts").textContent = "Assets " + money(report.assets, report.base_currency) + ", liabilities " + money(report.liabilities, report.base_currency) + (report.complete ? "" : "; not complete: " + report.excluded.map((item) => item.name + " (" + item.reason + ")").join(", "));
        } catch (error) { if (error.status === 401 || error.status === 403) throw error; failed($("net-worth-parts"), error); }
        try {
          const svg = await api("/charts/networth", "image/svg+xml");
          $("net-worth-chart").replaceChildren(cleanSVG(svg));
        } catch (error) { if (error.status === 401 || error.status === 403) throw error; failed($("net-worth-chart"), error); }
      }

      async function loadBudget() {
        const body = $("budget-table").tBodies[0];
        try {
          const [overview, chart] = await Promise.all([api("/budgets/overview"), api("/charts/budget")]);
          $("budget-title").textContent = "This month's budget: " + overview.month;
          const currency = chart.currency;
          pairs($("budget-overview"), [["Income", money(overview.income, currency)], ["Expenses", money(overview.expenses, currency)], ["Net", money(overview.net, currency)], ["Current balance", money(overview.current_balance, currency)]]);
          body.replaceChildren();
          const spent = (chart.series.find((series) => series.name === "Spent") || { values: [] }).values;
          const maximum = (chart.series.find((series) => series.name === "Maximum") || { values: [] }).values;
          chart.labels.forEach((label, index) => {
            const row = body.insertRow();
            const left = subtract(maximum[index], spent[index]);
            if (left !== null && left.startsWith("-")) row.className = "over";
            cell(row, label);
            cell(row, money(spent[index], currency), true);
            cell(row, money(maximum[index], currency), true);
            cell(row, left === null ? "—" : (left.startsWith("-") ? "over by " + money(left.slice(1), currency) : money(left, currency)), true);
          });
          if (!chart.labels.length) emptyRow(body, 4, "No budget this month.");
        } catch (error) { if (error.status === 401 || error.status === 403) throw error; failed($("budget-overview"), error); }
      }

      // a − b for two decimal strings of one scale, exactly (BigInt on the minor units).
      function subtract(a, b) {
        if (a === undefined || b === undefined || a === null || b === null) return null;
        const scale = Math.max((a.split(".")[1] || "").length, (b.split(".")[1] || "").length);
        const units = (text) => {
          const negative = text.startsWith("-");
          const [whole, fraction = ""] = (negative ? text.slice(1) : text).split(".");
          const value = BigInt(whole + fraction.padEnd(scale, "0"));
          return negative ? -value : value;
        };
        const difference = units(a) - units(b);
        const negative = difference < 0n;
        const digits = (negative ? -difference : difference).toString().padStart(scale + 1, "0");
        const text = scale ? digits.slice(0, digits.length - scale) + "." + digits.slice(digits.length - scale) : digits;
        return (negative ? "-" : "") + text;
      }

      async function loadEnvelopes() {
        const body = $("envelopes-table").tBodies[0];
        try {
          const answer = await api("/envelopes");
          body.replaceChildren();
          for (const envelope of answer.envelopes) {
            const row = body.insertRow();
            if (envelope.over_budget) row.className = "over";
            cell(row, envelope.name + (envelope.over_budget ? " (over budget)" : ""));
            cell(row, envelope.period_start + (envelope.period_end ? " to " + envelope.period_end : ""));
            cell(row, money(envelope.available, envelope.currency), true);
            cell(row, money(envelope.spent, envelope.currency), true);
            cell(row, money(envelope.remaining, envelope.currency), true);
          }
          if (!answer.envelopes.length) emptyRow(body, 5, "No envelopes.");
        } catch (error) { if (error.status === 401 || error.status === 403) throw error; body.replaceChildren(); emptyRow(body, 5, "Could not load: " + error.message); }
      }

      async function loadWealth() {
        const box = $("wealth");
        try {
          const accounts = (await api("/accounts")).accounts
            .map((account) => /^Wealth:(.+):Wallet$/.exec(account.account)).filter(Boolean).map((match) => match[1]);
          const summaries = await Promise.all(accounts.map((account) => api("/wealth/" + encodeURIComponent(account))));
          box.replaceChildren();
          for (const summary of summaries) {
            const heading = document.createElement("h3");
            heading.textContent = summary.account + ": split " + summary.split_rule + (summary.status === "active" ? "" : " (" + summary.status + ")");
            const table = document.createElement("table");
            table.createCaption().textContent = "Where the money of " + summary.account + " is" + (summary.unsplit_deposit_count ? "; " + summary.unsplit_deposit_count + " deposit(s) waiting to be split" : "");
            const head = table.createTHead().insertRow();
            for (const title of ["Currency", "Wallet", "Spend", "Invest", "Total"]) {
              const th = document.createElement("th"); th.scope = "col"; th.textContent = title;
              if (title !== "Currency") th.className = "num";
              head.appendChild(th);
            }
            const body = table.createTBody();
            for (const balance of summary.balances) {
              const row = body.insertRow();
              cell(row, balance.currency);
              for (const part of ["wallet", "spend", "invest", "total"]) cell(row, money(balance[part], balance.currency), true);
            }
            if (!summary.balances.length) emptyRow(body, 5, "Nothing deposited yet.");
            box.append(heading, table);
          }
          if (!summaries.length) box.textContent = "No wealth account.";
        } catch (error) { if (error.status === 401 || error.status === 403) throw error; failed(box, error); }
      }

      async function loadNotifications() {
        const list = $("notifications");
        try {
          const notes = (await api("/notifications")).notifications.slice(-10).reverse();
          list.replaceChildren();
          for (const note of notes) {
            const item = document.createElement("li");
            item.dataset.id = note.id;
            const when = document.createElement("span");
            when.className = "when";
            when.textContent = note.date + " · " + note.kind.replace(/_/g, " ");
            item.append(when, document.createTextNode(note.message));
            list.appendChild(item);
          }
          if (!notes.length) { const item = document.createElement("li"); item.textContent = "Nothing to tell yet."; list.appendChild(item); }
        } catch (error) { if (error.status === 401 || error.status === 403) throw error; failed(list, error); }
      }

      async function refresh(reason) {
        const ledgerInfo = await api("");
        document.title = "Tally dashboard: " + ledgerInfo.name;
        $("as-of").textContent = (asOf ? "As of " + asOf : "As of now") + " · " + ledgerInfo.name + " · " + ledgerInfo.base_currency;
        await Promise.all([loadNetWorth(), loadBudget(), loadEnvelopes(), loadWealth(), loadNotifications()]);
        lastEvent = Math.max(lastEvent, ledgerInfo.head.sequence);
        document.body.dataset.state = "loaded";
        document.body.dataset.head = String(lastEvent);
        $("status").textContent = (reason || "Loaded up to event " + lastEvent) + " at " + new Date().toLocaleTimeString() + ".";
        return ledgerInfo;
      }

      function scheduleRefresh(sequence) {
        clearTimeout(refreshTimer);
        refreshTimer = setTimeout(() => {
          refresh("Updated after event " + sequence).catch(handleFailure);
        }, 250);
      }

      // Server-Sent Events read with fetch, so the key goes in Authorization; resumes after
      // the last event seen (Last-Event-ID) with a growing pause when the stream ends.
      function listen(after) {
        const controller = new AbortController();
        stream = controller;
        let pause = 1000;
        const run = async () => {
          while (!controller.signal.aborted) {
            try {
              const response = await fetch(base + "/events", { headers: { "Authorization": "Bearer " + key, "Last-Event-ID": String(after), "Accept": "text/event-stream" }, signal: controller.signal, cache: "no-store" });
              if (response.status === 401 || response.status === 403) { lock("The key was refused: " + response.status + "."); return; }
              if (!response.ok || !response.body) throw new Error("events: " + response.status);
              pause = 1000;
              const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
              let buffer = "";
              for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                buffer += value;
                let end;
                while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
                  const block = buffer.slice(0, end);
                  buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
                  const message = {};
                  for (const line of block.split(/\r?\n/)) {
                    if (!line || line.startsWith(":")) continue;
                    const colon = line.indexOf(":");
                    const field = colon < 0 ? line : line.slice(0, colon);
                    const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
                    message[field] = field === "data" && message.data !== undefined ? message.data + "\n" + text : text;
                  }
                  if (["too_slow", "shutdown", "error"].includes(message.event)) {
                    try { after = JSON.parse(message.data).last_event_id; } catch (_) {}
                  } else if (message.id !== undefined && /^\d+$/.test(message.id)) {
                    after = Number(message.id);
                    scheduleRefresh(after);
                  }
                }
              }
            } catch (error) {
              if (controller.signal.aborted) return;
            }
            $("status").textContent = "Live updates paused; reconnecting.";
            await new Promise((resolve) => setTimeout(resolve, pause));
            pause = Math.min(pause * 2, 30000);
          }
        };
        run();
      }

      function handleFailure(error) {
        if (error.status === 401 || error.status === 403) lock("The key was refused: " + error.message);
        else $("status").textContent = "Could not load: " + error.message;
      }

      function lock(message) {
        if (stream) stream.abort();
        stream = null;
        key = null;
        sessionStorage.removeItem(storageKey);
        $("board").hidden = true;
        $("unlock").hidden = false;
        document.body.dataset.state = "locked";
        $("key-error").textContent = message || "";
        $("key").value = "";
        $("key").focus();
      }

      async function open(initial) {
        $("key-error").textContent = "";
        try {
          const info = await refresh(null);
          sessionStorage.setItem(storageKey, key);
          $("unlock").hidden = true;
          $("board").hidden = false;
          if (!initial) $("networth-title").focus();
          listen(info.head.sequence);
        } catch (error) {
          if (error.status === 401 || error.status === 403) lock("That key was refused (" + error.message + "). Give a key of this ledger with the read scope.");
          else { $("key-error").textContent = "Could not load the dashboard: " + error.message; }
        }
      }

      $("key-form").addEventListener("submit", (event) => {
        event.preventDefault();
        const given = $("key").value.trim();
        if (!given) { $("key-error").textContent = "Type the key first."; $("key").focus(); return; }
        key = given;
        $("key").value = "";
        open(false);
      });
      $("forget").addEventListener("click", () => lock("The key is forgotten."));
      if (key) open(true); else $("key").focus();
    })();
    """#
}
