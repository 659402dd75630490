// colmeia web UI: small behaviours htmx does not cover. No build step, no framework.
(function () {
  "use strict";
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "passage-body") {
      var dialog = document.getElementById("passage-dialog");
      if (dialog && !dialog.open) { dialog.showModal(); }
    }
  });
})();
