/// The dashboard: one page of plain HTML, CSS and a little JavaScript, served by the binary (no
/// build step). It reads the JSON APIs every two seconds and the live tail over a WebSocket
/// (`/api/live`), falling back to polling `/api/outcomes` when the socket is not available.
enum DashboardPage {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>ActionBus</title>
    <style>
      :root { --fg: #1d2330; --muted: #6b7280; --line: #e5e7eb; --ok: #0f7b3f; --bad: #b42318; --accent: #3056d3; }
      * { box-sizing: border-box; }
      body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: #f7f8fa; }
      header { display: flex; align-items: baseline; gap: 1.5rem; padding: .8rem 1.5rem; background: #111827; color: #fff; }
      header h1 { font-size: 1.1rem; margin: 0; }
      header .counters { display: flex; gap: 1.2rem; color: #cbd5e1; font-variant-numeric: tabular-nums; }
      header .counters b { color: #fff; }
      main { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 1rem; padding: 1rem 1.5rem; }
      section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; overflow: auto; }
      section.wide { grid-column: 1 / -1; }
      h2 { font-size: .95rem; margin: 0 0 .6rem; }
      table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
      th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; white-space: nowrap; }
      td:last-child { white-space: normal; }
      th { color: var(--muted); font-weight: 600; font-size: .8rem; }
      .ok { color: var(--ok); } .bad { color: var(--bad); } .muted { color: var(--muted); }
      .filters { display: flex; gap: .5rem; margin-bottom: .6rem; }
      .filters input { padding: .3rem .5rem; border: 1px solid var(--line); border-radius: 6px; }
      ul.stacks, ul.stacks ul { list-style: none; padding-left: 1rem; margin: .2rem 0; }
      ul.stacks > li { padding-left: 0; }
      code { font-size: .85rem; }
      #live-state { font-size: .8rem; }
    </style>
    </head>
    <body>
    <header>
      <h1>ActionBus</h1>
      <div class="counters" id="counters">loading…</div>
    </header>
    <main>
      <section class="wide">
        <h2>Live outcomes <span id="live-state" class="muted"></span></h2>
        <div class="filters">
          <input id="f-feature" placeholder="feature">
          <input id="f-action" placeholder="Feature.action">
          <input id="f-session" placeholder="session">
        </div>
        <table id="tail"><thead><tr><th>request</th><th>action</th><th>session</th><th>worker</th><th>outcome</th><th>output or error</th></tr></thead><tbody></tbody></table>
      </section>
      <section class="wide"><h2>Workers</h2><table id="workers"><tbody><tr><td class="muted">loading…</td></tr></tbody></table></section>
      <section><h2>Queues</h2><table id="queues"><tbody><tr><td class="muted">loading…</td></tr></tbody></table>
        <h2 style="margin-top:1rem">Sessions waiting</h2><table id="sessions"><tbody><tr><td class="muted">loading…</td></tr></tbody></table></section>
      <section><h2>Action stacks</h2><div id="stacks" class="muted">loading…</div></section>
      <section><h2>Features</h2><table id="features"><tbody><tr><td class="muted">loading…</td></tr></tbody></table></section>
    </main>
    <script>
    "use strict";
    const text = (value) => String(value ?? "");
    const cell = (value, cls) => { const td = document.createElement("td"); td.textContent = text(value); if (cls) td.className = cls; return td; };
    const row = (cells) => { const tr = document.createElement("tr"); cells.forEach((c) => tr.appendChild(c)); return tr; };
    const table = (id, head, rows) => {
      const el = document.getElementById(id);
      el.replaceChildren();
      const thead = document.createElement("thead");
      thead.appendChild(row(head.map((h) => { const th = document.createElement("th"); th.textContent = h; return th; })));
      const tbody = document.createElement("tbody");
      if (rows.length === 0) tbody.appendChild(row([cell("none", "muted")]));
      rows.forEach((r) => tbody.appendChild(r));
      el.append(thead, tbody);
    };
    // Outcomes need the server's bearer token unless it serves on loopback: open the page as
    // /#token=TOKEN once; the token stays in this tab's session storage, never in a URL sent.
    const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
    if (fromHash) { sessionStorage.setItem("actionbus.token", fromHash); history.replaceState(null, "", location.pathname); }
    const token = sessionStorage.getItem("actionbus.token");
    async function json(path) {
      const r = await fetch(path, token ? { headers: { Authorization: "Bearer " + token } } : {});
      if (!r.ok) throw new Error(path + ": " + r.status);
      return r.json();
    }

    async function refresh() {
      try {
        const s = await json("/api/stats");
        document.getElementById("counters").innerHTML = "";
        for (const [name, key] of [["workers", "workers"], ["queued", "queued"], ["running", "running"], ["accepted", "accepted"], ["completed", "completed"], ["redelivered", "redelivered"], ["overflows", "streamOverflows"]]) {
          const span = document.createElement("span"); span.innerHTML = name + " <b></b>"; span.querySelector("b").textContent = text(s[key]);
          document.getElementById("counters").appendChild(span);
        }
        const w = await json("/api/workers");
        table("workers", ["name", "protocol", "running", "sessions", "last heard", "state", "actions"], w.workers.map((x) => row([
          cell(x.name), cell(x.protocol), cell(x.inFlight + "/" + x.credits), cell(x.sessions), cell(x.lastHeardMs + " ms ago"),
          cell(x.unreachable ? "unreachable" : x.draining ? "draining" : "ready", x.unreachable ? "bad" : x.draining ? "muted" : "ok"),
          cell(x.actions.length + " actions")])));
        const q = await json("/api/queues");
        table("queues", ["action", "queued", "running", "workers"], q.actions.filter((a) => a.queued || a.running || a.workers || a.noWorkerSince).map((a) => row([
          cell(a.action), cell(a.queued), cell(a.running),
          cell(a.workers || (a.noWorkerSince ? "none since " + a.noWorkerSince : 0), a.workers ? "" : "bad")])));
        table("sessions", ["session", "queued", "worker"], q.sessions.map((x) => row([cell(x.session), cell(x.queued), cell(x.worker || "-")])));
        const st = await json("/api/stacks");
        const list = (stacks) => { const ul = document.createElement("ul"); ul.className = "stacks";
          for (const stack of stacks) { const li = document.createElement("li");
            li.textContent = stack.sessionName + " › " + stack.featureName + ": " + stack.entries.filter((e) => e.actionName).map((e) => e.actionName).join(" → ") + (stack.userInitiated ? "" : " (not user-initiated)");
            if (stack.subStacks && stack.subStacks.length) li.appendChild(list(stack.subStacks));
            ul.appendChild(li); }
          return ul; };
        const stacksEl = document.getElementById("stacks");
        stacksEl.replaceChildren(st.stacks.length ? list(st.stacks) : Object.assign(document.createElement("span"), { textContent: "no open stacks", className: "muted" }));
        const f = await json("/api/features");
        table("features", ["feature", "workers", "switch", "description", "actions"], f.features.map((x) => row([
          cell(x.name), cell(x.workers), cell(x.switched || "-", x.switched === "off" ? "bad" : ""),
          cell((x.description || "") + (x.conditional ? " (conditional)" : "")), cell(x.actions.join(" "))])));
      } catch (error) {
        document.getElementById("counters").textContent = "cannot reach the coordinator's API: " + error.message;
      }
    }

    const tail = [];
    const filters = () => ({ feature: document.getElementById("f-feature").value.trim(), action: document.getElementById("f-action").value.trim(), session: document.getElementById("f-session").value.trim() });
    function matches(o, f) {
      return (!f.feature || o.action.split(".")[0] === f.feature) && (!f.action || o.action === f.action) && (!f.session || o.session === f.session);
    }
    function renderTail() {
      const f = filters();
      const body = document.querySelector("#tail tbody");
      body.replaceChildren();
      for (const o of tail.filter((o) => matches(o, f)).slice(-200).reverse()) {
        const detail = o.outcome === "success" ? JSON.stringify(o.output) : (o.error.code + ": " + o.error.message);
        body.appendChild(row([cell(o.request), cell(o.action + (o.nested ? " (nested)" : "")), cell(o.session), cell(o.worker),
          cell(o.outcome, o.outcome === "success" ? "ok" : "bad"), cell(detail)]));
      }
    }
    function add(outcome) { tail.push(outcome); if (tail.length > 1000) tail.splice(0, tail.length - 1000); }
    ["f-feature", "f-action", "f-session"].forEach((id) => document.getElementById(id).addEventListener("input", renderTail));

    async function loadRecent() {
      let recent;
      try { recent = await json("/api/outcomes?limit=200"); } catch (error) {
        if (/: 40[13]$/.test(error.message)) {
          document.getElementById("live-state").textContent = "outcomes need this server's token: open /#token=TOKEN";
          return false;
        }
        throw error;
      }
      tail.length = 0; recent.outcomes.forEach(add); renderTail();
      return true;
    }
    function connectLive() {
      const state = document.getElementById("live-state");
      const query = token ? "?access_token=" + encodeURIComponent(token) : "";
      const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/live" + query);
      socket.onopen = () => { state.textContent = "live"; };
      socket.onmessage = (event) => { add(JSON.parse(event.data)); renderTail(); };
      socket.onclose = () => {
        state.textContent = "reconnecting…";
        setTimeout(() => { loadRecent().then((allowed) => { if (allowed) connectLive(); }, connectLive); }, 2000);
      };
    }

    refresh(); setInterval(refresh, 2000);
    loadRecent().then((allowed) => { if (allowed) connectLive(); }, connectLive);
    </script>
    </body>
    </html>
    """#
}
