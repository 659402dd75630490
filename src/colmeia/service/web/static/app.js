// colmeia web UI: small behaviours htmx does not cover. No build step, no framework.
(function () {
  "use strict";

  function openPassage(html) {
    var body = document.getElementById("passage-body");
    var dialog = document.getElementById("passage-dialog");
    if (!body || !dialog) { return; }
    body.innerHTML = html;
    if (!dialog.open) { dialog.showModal(); }
  }

  // htmx swaps no 4xx/5xx answer by itself: the service answers an htmx request that fails
  // (a rate limit, a refusal) with an HTML fragment saying why, shown where the result goes
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    var kind = (xhr && xhr.getResponseHeader("Content-Type")) || "";
    if (xhr && xhr.status >= 400 && kind.indexOf("text/html") === 0) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "passage-body") {
      var dialog = document.getElementById("passage-dialog");
      if (dialog && !dialog.open) { dialog.showModal(); }
    }
  });

  // Chat: POST the question, read the answer as server-sent events (tokens, handoffs,
  // citations, approval/clarification requests, the result) and show them as they come.
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text) { node.textContent = text; }
    return node;
  }

  function setupChat() {
    var chat = document.getElementById("chat");
    var form = document.getElementById("chat-form");
    if (!chat || !form) { return; }
    var log = document.getElementById("chat-log");
    var thread = chat.dataset.thread;
    var collection = chat.dataset.collection;
    var words = form.dataset;

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var input = document.getElementById("chat-text");
      var text = input.value.trim();
      if (!text) { return; }
      input.value = "";
      var button = form.querySelector("button");
      button.disabled = true;
      var user = el("div", "msg user"); user.appendChild(el("div", "bubble", text)); log.appendChild(user);
      var reply = el("div", "msg assistant");
      var bubble = el("div", "bubble"); reply.appendChild(bubble);
      var events = el("div", "event"); reply.appendChild(events);
      var sources = null;
      log.appendChild(reply);

      function handle(name, data) {
        if (name === "token") { bubble.textContent += data.text; }
        else if (name === "replace") { bubble.textContent = data.text; }
        else if (name === "handoff") { events.appendChild(el("div", "event", "→ " + words.handoff + " " + (data.to || data.target || ""))); }
        else if (name === "tool") { events.appendChild(el("div", "event", words.tool + ": " + (data.name || data.tool || ""))); }
        else if (name === "citation") {
          if (!sources) {
            reply.appendChild(el("p", "event", words.sources));
            sources = el("ol", "citations"); reply.appendChild(sources);
          }
          var item = el("li", null, (data.label || data.doc_id) + " ");
          var open = el("button", "link open-citation", words.open);
          open.type = "button";
          open.addEventListener("click", function () {
            fetch("/ui/passage/" + encodeURIComponent(collection) + "/" + encodeURIComponent(data.chunk_id), { credentials: "same-origin" })
              .then(function (r) { return r.text(); }).then(openPassage);
          });
          item.appendChild(open); sources.appendChild(item);
        }
        else if (name === "approval" || name === "clarification") {
          var note = el("p", "event waiting"); var link = el("a", null, words.waiting); link.href = "/ui/approvals";
          note.appendChild(link); reply.appendChild(note);
          if (data.question && !bubble.textContent) { bubble.textContent = data.question; }
        }
        else if (name === "result") {
          reply.dataset.status = data.status;
          if (!bubble.textContent) { bubble.textContent = data.answer || ""; }
          if (data.simulated) { bubble.appendChild(document.createTextNode(" ")); bubble.appendChild(el("span", "tag", words.simulated)); }
        }
        else if (name === "error") { reply.appendChild(el("p", "error", data.detail)); }
        log.scrollTop = log.scrollHeight;
      }

      fetch("/v1/assistant/threads/" + thread + "/messages", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "Accept": "text/event-stream" },
        body: JSON.stringify({ text: text, flags: { enable_web_search: !!(document.getElementById("chat-web") || {}).checked } })
      }).then(function (response) {
        if (!response.ok) {
          return response.json().then(function (e) { handle("error", e); });
        }
        var reader = response.body.getReader();
        var decoder = new TextDecoder();
        var buffer = "";
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done) { return; }
            buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, "\n");
            var cut;
            while ((cut = buffer.indexOf("\n\n")) >= 0) {
              var block = buffer.slice(0, cut); buffer = buffer.slice(cut + 2);
              var name = "", data = "";
              block.split("\n").forEach(function (line) {
                if (line.indexOf("event: ") === 0) { name = line.slice(7); }
                else if (line.indexOf("data: ") === 0) { data += line.slice(6); }
              });
              if (name && data) { handle(name, JSON.parse(data)); }
            }
            return pump();
          });
        }
        return pump();
      }).catch(function (err) { handle("error", { detail: String(err) }); })
        .then(function () { button.disabled = false; input.focus(); });
    });
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", setupChat); }
  else { setupChat(); }
})();
