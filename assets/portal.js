// Calls to the portal's HTTP endpoints that must set or clear the HttpOnly session cookie.
// The password goes straight from the form to /api/account/sign-in; it never enters app state.
(function () {
  const GENERIC = "Something went wrong, please try again later";

  // One JSON call to the portal's HTTP endpoints, with the session cookie; shared by every form below.
  async function sendJson(method, url, body) {
    const response = await fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body || {}),
    });
    let data = {};
    try {
      data = await response.json();
    } catch (e) {
      data = {};
    }
    return { ok: response.ok, status: response.status, data: data };
  }
  window.portalHttp = { sendJson: sendJson };

  function postJson(url, body) {
    return sendJson("POST", url, body);
  }

  function remember(method) {
    try {
      window.localStorage.setItem("lastLoginMethod", method);
    } catch (e) {
      /* storage may be disabled; the badge is a convenience only */
    }
  }

  // Invisible captcha: a token for an action, or "" when captcha is off (window.portalConfig).
  const captchaWidgets = {};
  window.portalCaptcha = {
    async token(action) {
      const cfg = (window.portalConfig || {}).captcha || {};
      if (!cfg.provider || cfg.provider === "none") return "";
      try {
        if (cfg.provider === "recaptcha") {
          await new Promise((resolve) => window.grecaptcha.ready(resolve));
          return await window.grecaptcha.execute(cfg.siteKey, { action: action });
        }
        if (cfg.provider === "hcaptcha") {
          if (captchaWidgets.hcaptcha === undefined) {
            const box = document.createElement("div");
            document.body.appendChild(box);
            captchaWidgets.hcaptcha = window.hcaptcha.render(box, { sitekey: cfg.siteKey, size: "invisible" });
          }
          const answer = await window.hcaptcha.execute(captchaWidgets.hcaptcha, { async: true });
          return (answer && answer.response) || "";
        }
        if (cfg.provider === "turnstile") {
          return await new Promise((resolve) => {
            const box = document.createElement("div");
            document.body.appendChild(box);
            const id = window.turnstile.render(box, {
              sitekey: cfg.siteKey,
              action: action,
              appearance: "interaction-only",
              callback: (t) => resolve(t),
              "error-callback": () => resolve(""),
            });
            window.turnstile.execute(id);
          });
        }
      } catch (e) {
        console.error("captcha failed", e);
      }
      return "";
    },
  };

  // LinkedIn / Google: tracking data kept for the browser session, and the 'Last used' method
  // that the provider callback leaves in a short-lived, non-secret cookie.
  const TRACKING_KEYS = ["utm_medium", "utm_campaign", "utm_source", "li_fat_id", "RR_WCID", "RR_WCID_TTL", "REFERRALCODE"];
  function trackingData() {
    let kept = {};
    try {
      kept = JSON.parse(window.sessionStorage.getItem("portalTracking") || "{}") || {};
    } catch (e) {
      kept = {};
    }
    const here = new URLSearchParams(window.location.search);
    TRACKING_KEYS.forEach((key) => {
      const value = here.get(key);
      if (value) kept[key] = value;
    });
    try {
      window.sessionStorage.setItem("portalTracking", JSON.stringify(kept));
    } catch (e) {
      /* storage may be disabled */
    }
    return kept;
  }
  trackingData();
  (function pickUpLoginMethod() {
    const match = document.cookie.match(/(?:^|;\s*)portal_login_method=(linkedin|google)/);
    if (match) {
      remember(match[1]);
      document.cookie = "portal_login_method=; Max-Age=0; path=/; SameSite=Lax";
    }
  })();

  // Every other open tab of the portal learns of a sign-out at once (issue 40) and loads its page again: a private
  // page's guard then sends it to sign-in, so nobody's page stays on a screen after its person left.
  const AUTH_CHANNEL = "portal-auth";
  const channel = "BroadcastChannel" in window ? new BroadcastChannel(AUTH_CHANNEL) : null;
  function tellOtherTabs(what) {
    try {
      if (channel) channel.postMessage(what);
      window.localStorage.setItem(AUTH_CHANNEL, what + ":" + Date.now()); // browsers without BroadcastChannel
    } catch (e) {
      console.warn("auth: other tabs not told", e);
    }
  }
  function leaveIfSignedOut(what) {
    if (String(what).split(":")[0] !== "signed-out") return;
    if (/^\/sign-(in|up)(\/|$)/.test(window.location.pathname)) return; // already where a signed-out person goes
    window.location.reload();
  }
  if (channel) channel.onmessage = (event) => leaveIfSignedOut(event.data);
  else window.addEventListener("storage", (event) => event.key === AUTH_CHANNEL && leaveIfSignedOut(event.newValue));

  window.portalAuth = {
    async signIn(formId) {
      const form = document.getElementById(formId);
      const fields = new FormData(form);
      const to = new URLSearchParams(window.location.search).get("to") || "";
      let result;
      try {
        const captchaToken = await window.portalCaptcha.token("sign_in");
        result = await postJson("/api/account/sign-in", {
          email: fields.get("email") || "",
          password: fields.get("password") || "",
          to: to,
          captchaToken: captchaToken,
        });
      } catch (e) {
        return { errors: [{ field: "_global", message: "Network error. Please check your connection and try again." }] };
      }
      if (result.ok) {
        remember("email");
        if (typeof result.data.redirect !== "string") {
          console.warn("Unexpected sign-in answer; treating it as success", result.data);
        }
        // A full navigation, so the app's socket reconnects with the new cookie.
        window.location.assign(result.data.redirect || "/");
        return { ok: true };
      }
      const errors = Array.isArray(result.data.errors) ? result.data.errors : [{ field: "_global", message: GENERIC }];
      return { errors: errors };
    },

    // The second step of a two-factor sign-in: the code goes to /api/account/two-factor (the challenge is in an
    // HttpOnly cookie); a right one opens the session and the page goes on with a full navigation.
    async twoFactor(formId) {
      const fields = new FormData(document.getElementById(formId));
      const to = new URLSearchParams(window.location.search).get("to") || "";
      let result;
      try {
        result = await postJson("/api/account/two-factor", { code: fields.get("code") || "", to: to });
      } catch (e) {
        return { errors: [{ field: "_global", message: "Network error. Please check your connection and try again." }] };
      }
      if (result.ok) {
        window.location.assign(result.data.redirect || "/");
        return { ok: true };
      }
      const errors = Array.isArray(result.data.errors) ? result.data.errors : [{ field: "_global", message: GENERIC }];
      return { errors: errors, restart: typeof result.data.redirect === "string" };
    },

    async signOut() {
      try {
        await postJson("/api/account/logout", {});
      } catch (e) {
        /* go to sign-in anyway */
      }
      tellOtherTabs("signed-out");
      window.location.assign("/sign-in");
      return { ok: true };
    },

    // Start the LinkedIn or Google flow: a full navigation to /api/auth/{provider}/start with the
    // flags, the return path, the tracking data and, for sign-up, the captcha token.
    async oauth(provider, flags) {
      flags = flags || {};
      const here = new URLSearchParams(window.location.search);
      const params = new URLSearchParams();
      ["signUp", "connectExisting", "signInFlow", "isSignIn"].forEach((key) => {
        if (flags[key]) params.set(key, "true");
      });
      const returnUrl = flags.returnUrl || here.get("returnUrl") || here.get("to") || "";
      if (returnUrl) params.set("returnUrl", returnUrl);
      const tracking = trackingData();
      Object.keys(tracking).forEach((key) => params.set(key, tracking[key]));
      if (flags.signUp) params.set("captchaToken", await window.portalCaptcha.token("sign_up"));
      window.location.assign("/api/auth/" + encodeURIComponent(provider) + "/start?" + params.toString());
      return { ok: true };
    },
  };
})();

// Password recovery: the forms post straight to /api/account, so no password enters app state.
(function () {
  const GENERIC = "Something went wrong, please try again later";
  const NETWORK = "Network error. Please check your connection and try again.";

  const sendJson = window.portalHttp.sendJson;

  function failure(result) {
    return { errors: Array.isArray(result.data.errors) ? result.data.errors : [{ field: "_global", message: GENERIC }] };
  }

  window.portalPasswords = {
    async forgot(formId) {
      const fields = new FormData(document.getElementById(formId));
      try {
        const result = await sendJson("POST", "/api/account/forgot-password", { email: fields.get("email") || "" });
        return result.ok ? result.data : failure(result);
      } catch (e) {
        return { errors: [{ field: "_global", message: NETWORK }] };
      }
    },

    async reset(formId) {
      const fields = new FormData(document.getElementById(formId));
      const token = new URLSearchParams(window.location.search).get("token") || "";
      try {
        const result = await sendJson("PUT", "/api/account/reset-password", {
          password: fields.get("password") || "",
          confirmPassword: fields.get("confirmPassword") || "",
          token: token,
        });
        return result.ok ? { ok: true } : failure(result);
      } catch (e) {
        return { errors: [{ field: "_global", message: NETWORK }] };
      }
    },

    async change(formId) {
      const form = document.getElementById(formId);
      const fields = new FormData(form);
      try {
        const result = await sendJson("PUT", "/api/account/password", {
          currentPassword: fields.get("currentPassword") || "",
          password: fields.get("password") || "",
          confirmPassword: fields.get("confirmPassword") || "",
        });
        if (result.ok) form.reset();
        return result.ok ? { ok: true } : failure(result);
      } catch (e) {
        return { errors: [{ field: "_global", message: NETWORK }] };
      }
    },
  };
})();

// A test in progress, of any kind (portal/states/taking/timed_session.py): answers kept in local storage
// under the kind's key (named by the server: '{testId}-survey-answers', '{testId}-answers'; each keystroke too), the
// countdown drawn from the server deadline, and the browser's reports (timer thresholds, tab
// focus, other tabs' saves, pastes, how far a screenshot was scrolled) sent through the hidden
// #taking-bridge input. The server checks every report against its own clock.
(function () {
  const POLL_MS = 300000;
  const fired = {};
  let clockOffset = 0;
  let lastClock = null;
  let nonce = 0;

  function readRaw(key) {
    try { return window.localStorage.getItem(key) || ""; } catch (e) { console.warn("test: local read failed", e); return ""; }
  }
  function writeRaw(key, value) {
    try { window.localStorage.setItem(key, value); } catch (e) { console.warn("test: local save failed", e); }
  }
  function timerEl() { return document.getElementById("taking-timer"); }
  function activeTestId() {
    const el = timerEl();
    return el ? Number(el.dataset.testId) : null;
  }
  function send(message) {
    const el = document.getElementById("taking-bridge");
    if (!el) return;
    nonce += 1;
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
    setter.call(el, JSON.stringify({ ...message, nonce }));
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }

  // Saving, truthfully (issue 18): a server reply to an answer arrives before Reflex stores the
  // state (whose write can still be refused), so it is not the acknowledgement. The changed answers
  // stay in local storage as pending ({key: {answer, seq}}) until the server confirms, from the
  // state stored by the events before, that it holds them: the next event's reply does (its
  // sequence numbers are the stored state's for every answer it did not change), or else a
  // 'pending' report through the bridge, sent FIRST_CHECK_MS after a reply and again with backoff
  // while anything is unconfirmed (the server applies again an answer it lost).
  // #taking-save-status says 'Saving…' when an answer has waited more than SAVING_AFTER_MS for any
  // reply or for a report's confirmation, and then 'All answers saved' once nothing is pending.
  const FIRST_CHECK_MS = 5000;
  const RETRY_CHECK_MS = 1000;
  const MAX_CHECK_MS = 15000;
  const SAVING_AFTER_MS = 2000; // a save confirmed within this shows nothing
  const SAVING = "Saving\u2026";
  const SAVED = "All answers saved";
  let awaitingSince = 0; // an answer was given and no reply has come yet
  let reportSince = 0; // a pending report was sent and not everything is confirmed yet
  let nextCheck = 0; // when to ask the server about the pending answers (0: nothing pending)
  let checkEvery = RETRY_CHECK_MS;

  function readStored(key) {
    try {
      const value = JSON.parse(readRaw(key) || "{}");
      return value && typeof value === "object" ? value : {};
    } catch (e) { return {}; }
  }
  function pendingOf(stored) {
    return stored.pending && typeof stored.pending === "object" ? stored.pending : {};
  }
  // Text typed but not yet answered by the server ({key: {value, at}}): kept over the server's
  // replies until a reply holds it. A reply more than TYPED_GRACE_MS after the keystroke was for an
  // event sent after it (the text is debounced far less), so the entry ends then too (the server
  // may have normalised the value, e.g. a number).
  const TYPED_GRACE_MS = 3000;
  function typedOf(stored) {
    const typed = stored.typed && typeof stored.typed === "object" ? stored.typed : {};
    const kept = {};
    Object.entries(typed).forEach(([k, entry]) => {
      if (entry && typeof entry === "object" && typeof entry.value === "string") kept[k] = entry;
    });
    return kept;
  }
  function sameValue(answer, value) {
    return !!answer && answer.value !== undefined && answer.value !== null && String(answer.value) === value;
  }
  function freshTyped(stored) {
    const now = Date.now();
    return Object.values(typedOf(stored)).filter((entry) => now - Number(entry.at || 0) < TYPED_GRACE_MS).length;
  }
  function storeKeyShown() {
    const el = timerEl();
    return el && el.dataset.store ? el.dataset.store : "";
  }
  function saveStatus() {
    const el = document.getElementById("taking-save-status");
    const key = storeKeyShown();
    if (!el || !key) return;
    const stored = readStored(key);
    const pending = Object.keys(pendingOf(stored)).length + freshTyped(stored);
    const now = Date.now();
    const overdue = (awaitingSince && now - awaitingSince > SAVING_AFTER_MS)
      || (reportSince && now - reportSince > SAVING_AFTER_MS);
    let shown = el.textContent;
    if (overdue) shown = SAVING;
    else if (!pending && !awaitingSince && shown) shown = SAVED;
    // otherwise what shows stays: 'Saving…' until everything is confirmed, nothing for quick saves
    if (el.textContent !== shown) el.textContent = shown;
    el.dataset.state = pending || awaitingSince ? "saving" : "saved";
  }
  function checkPending() {
    const key = storeKeyShown();
    const testId = activeTestId();
    if (!key || !testId) return;
    const now = Date.now();
    const pending = pendingOf(readStored(key));
    // Pending answers, or an answer given long ago with no reply (the report's answer shows that
    // the server has handled what came before it).
    const noReply = awaitingSince && now - awaitingSince > SAVING_AFTER_MS;
    if (!Object.keys(pending).length && !noReply) {
      nextCheck = 0;
      return;
    }
    if (!nextCheck) {
      checkEvery = RETRY_CHECK_MS;
      nextCheck = now + (noReply || reportSince ? RETRY_CHECK_MS : FIRST_CHECK_MS);
      return;
    }
    if (now < nextCheck) return;
    nextCheck = now + checkEvery;
    checkEvery = Math.min(checkEvery * 2, MAX_CHECK_MS);
    if (!reportSince) reportSince = now;
    send({ kind: "pending", testId, pending });
  }
  setInterval(() => { checkPending(); saveStatus(); }, 250);
  // An answer given (a choice, a keystroke): 'Saving…' if no reply comes soon. A controlled radio
  // button (a preference concept) fires no change event, and a button none at all: the click on one
  // marked data-chosen="false" (a concept not chosen yet) is the answer.
  ["change", "input", "click"].forEach((type) => document.addEventListener(type, (event) => {
    const el = event.target;
    if (!el || !timerEl() || el.id === "taking-bridge" || !el.closest || el.type === "hidden") return;
    if (type === "click" && !el.closest("[data-chosen='false']")) return;
    if (el.closest("[data-answers]") || (el.dataset && el.dataset.answerKey)) {
      if (!awaitingSince) awaitingSince = Date.now();
    }
  }, true));

  window.portalTaking = {
    read(key) { return readRaw(key); },
    // On entering a running session: this browser's copy goes to the server (the bridge's 'restore')
    // only when it belongs to that session and is newer than the server's draft (or holds unsent
    // keystrokes); otherwise nothing is sent.
    // `seqs`: the sequence numbers of the answers in the server's stored state (the state this page
    // loaded was stored): pending answers it holds are confirmed first.
    offer(key, testId, sessionId, rev, seqs) {
      if (seqs && typeof seqs === "object") this.confirmed(key, { sessionId, seqs });
      const raw = readRaw(key);
      if (!raw) return;
      let local = null;
      try { local = JSON.parse(raw); } catch (e) { return; }
      if (!local || local.sessionId !== sessionId) return;
      if (!(local.dirty || (Number.isInteger(local.rev) && local.rev > rev))) return;
      const go = (tries) => {
        if (document.getElementById("taking-bridge")) send({ kind: "restore", testId, value: raw });
        else if (tries > 0) setTimeout(() => go(tries - 1), 25);
      };
      go(400);
    },
    // The server's reply to a change: its copy of the answers, and the changed answers, pending
    // until confirmed. Pending answers of the same session are kept (and win over the copy's),
    // unless the copy holds a newer change of the same answer.
    reply(key, payload, changed) {
      const old = readStored(key);
      const pending = old.sessionId === payload.sessionId ? pendingOf(old) : {};
      Object.entries(changed || {}).forEach(([k, entry]) => {
        if (!pending[k] || pending[k].seq <= entry.seq) pending[k] = entry;
      });
      // An answer this event did not change is the stored state's (the event loaded it): a pending
      // one it holds, or a newer change of it, is confirmed. One it changed waits for a later event.
      const seqs = payload.seqs || {};
      const answers = { ...(payload.answers || {}) };
      Object.entries(pending).forEach(([k, entry]) => {
        if (seqs[k] > entry.seq || (seqs[k] === entry.seq && !(changed && k in changed))) delete pending[k];
        else answers[k] = entry.answer;
      });
      // Keystrokes typed after this answer's event was sent stay (and keep the copy dirty).
      const typed = old.sessionId === payload.sessionId ? typedOf(old) : {};
      const now = Date.now();
      Object.entries(typed).forEach(([k, entry]) => {
        if (sameValue(answers[k], entry.value) || now - Number(entry.at || 0) > TYPED_GRACE_MS) delete typed[k];
        else answers[k] = { ...(answers[k] || {}), value: entry.value };
      });
      const left = Object.keys(pending).length;
      writeRaw(key, JSON.stringify({ ...payload, answers, pending, typed, dirty: left > 0 || Object.keys(typed).length > 0 }));
      awaitingSince = 0;
      if (!left) { reportSince = 0; nextCheck = 0; }
      else if (!reportSince) { checkEvery = RETRY_CHECK_MS; nextCheck = now + FIRST_CHECK_MS; }
      saveStatus();
    },
    // The server holds these answers (by key, its sequence number): no longer pending.
    confirmed(key, data) {
      const stored = readStored(key);
      if (!data || stored.sessionId !== data.sessionId) return;
      const pending = pendingOf(stored);
      let progress = false;
      Object.entries(data.seqs || {}).forEach(([k, seq]) => {
        if (pending[k] && pending[k].seq <= seq) { delete pending[k]; progress = true; }
      });
      const left = Object.keys(pending).length;
      const unsent = Object.keys(typedOf(stored)).length > 0;
      writeRaw(key, JSON.stringify({ ...stored, pending, dirty: left > 0 || unsent }));
      // The report's reply shows the server handled what came before it; a keystroke typed just now
      // may still be waiting for its (debounced) event.
      if (!freshTyped(stored)) awaitingSince = 0;
      if (!left) { reportSince = 0; nextCheck = 0; checkEvery = RETRY_CHECK_MS; }
      else if (progress) { checkEvery = RETRY_CHECK_MS; nextCheck = Date.now() + RETRY_CHECK_MS; }
      saveStatus();
    },
    // The pending answers (for 'Continue', which applies those the server lacks).
    pendingAnswers(key) { return JSON.stringify(pendingOf(readStored(key))); },
    // A test's place (a highlight test's block, area, question) under `key`, by test id.
    savePlace(key, testId, place) {
      let all = {};
      try { all = JSON.parse(readRaw(key) || "{}") || {}; } catch (e) { all = {}; }
      all[testId] = place;
      writeRaw(key, JSON.stringify(all));
    },
    // Everything this browser keeps of a test; the server names the keys (its kinds registry):
    // {answers: ['{testId}-survey-answers', ...], places: ['highlight-areas-answers', ...]}.
    clear(testId, keys) {
      try { window.sessionStorage.removeItem(measuresKey(testId)); } catch (e) { /* storage off */ }
      try {
        ((keys && keys.answers) || []).forEach((key) => window.localStorage.removeItem(key));
        ((keys && keys.places) || []).forEach((key) => {
          const all = JSON.parse(readRaw(key) || "{}") || {};
          if (all[testId] !== undefined) { delete all[testId]; writeRaw(key, JSON.stringify(all)); }
        });
      } catch (e) { console.warn(e); }
    },
    // The screenshot pane scrolls to a highlighted area, 50 px above it (spec section 9).
    scrollToArea(index, offset) {
      const pane = document.getElementById("highlight-screenshot-pane");
      const area = document.getElementById(`highlight-area-${index}`);
      if (!pane || !area) return;
      const top = area.getBoundingClientRect().top - pane.getBoundingClientRect().top + pane.scrollTop - offset;
      pane.scrollTo({ top: Math.max(0, top), behavior: "smooth" });
      if (pane.scrollHeight > pane.clientHeight + 4) return;
      // A stacked (narrow) view scrolls the page instead of the pane.
      window.scrollTo({ top: Math.max(0, area.getBoundingClientRect().top + window.scrollY - offset), behavior: "smooth" });
    },
    completed(testId, keys) {
      this.clear(testId, keys);
      try {
        const done = JSON.parse(window.localStorage.getItem("completedTests") || "[]");
        if (Array.isArray(done) && !done.includes(testId)) done.push(testId);
        window.localStorage.setItem("completedTests", JSON.stringify(done));
        document.cookie = `completedTests=${encodeURIComponent(JSON.stringify(done))}; path=/; max-age=31536000; SameSite=Lax`;
      } catch (e) { console.warn(e); }
    },
    // A visitor without an account: their random respondent id (kept in this browser) and the
    // external service's project id from the address, for the server to name their session; `partner`:
    // the token the server gave this page for a partner's link it checked (handed back as it came).
    who(testId, partner) {
      let id = null;
      try {
        id = window.localStorage.getItem("portalRespondentId");
        if (!id || !/^[0-9a-f]{32}$/.test(id)) {
          const bytes = new Uint8Array(16);
          window.crypto.getRandomValues(bytes);
          id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
          window.localStorage.setItem("portalRespondentId", id);
        }
      } catch (e) { console.warn("test: respondent id", e); }
      const project = new URLSearchParams(window.location.search).get("respondent_project_id") || "";
      return JSON.stringify({ testId, id, project, partner: typeof partner === "string" ? partner : "" });
    },
    remainingMs() {
      const el = timerEl();
      if (!el) return null;
      const deadline = Number(el.dataset.deadline);
      return deadline ? deadline - (Date.now() + clockOffset) : null;
    },
  };

  // Every keystroke of a text answer is in local storage at once (the server gets it debounced).
  document.addEventListener("input", (event) => {
    const el = event.target;
    if (!el || !el.dataset || !el.dataset.answerKey || !el.dataset.storeKey) return;
    const raw = readRaw(el.dataset.storeKey);
    let stored = {};
    try { stored = raw ? JSON.parse(raw) : {}; } catch (e) { stored = {}; }
    stored.answers = stored.answers || {};
    stored.answers[el.dataset.answerKey] = { ...(stored.answers[el.dataset.answerKey] || {}), value: el.value };
    stored.typed = { ...typedOf(stored), [el.dataset.answerKey]: { value: el.value, at: Date.now() } };
    stored.dirty = true;
    writeRaw(el.dataset.storeKey, JSON.stringify(stored));
  }, true);

  document.addEventListener("paste", (event) => {
    const el = event.target;
    if (!el || !el.dataset || !el.dataset.answerKey) return;
    const text = (event.clipboardData && event.clipboardData.getData("text")) || "";
    if (!text.length) return;
    // Recorded on the answer; the pasted text itself follows with the (debounced) change.
    send({ kind: "paste", testId: Number(el.dataset.testId), key: el.dataset.answerKey,
           length: text.length, at: new Date().toISOString() });
  }, true);

  // The free-text answers' measures (issue 36; the keys are portal/domain/taking/signals.py's): typing
  // time (the gaps between keystrokes, a gap over TYPING_GAP_MS is a pause and does not count), and
  // leaving the tab or window while on the answer (how often, and the seconds away). Totals per test,
  // kept in session storage (a reload of the tab keeps them); window.portalTaking.measures() is read
  // by the answer's own events (set_text / set_answer_text carry it), never an event of their own.
  const TYPING_GAP_MS = 5000;
  const lastKeystroke = {};
  let focusedAnswer = null; // the free-text answer the participant is on (kept while the window is left)
  let awayFrom = null; // {testId, key, since}: the tab or window was left while on that answer
  function textAnswer(el) {
    if (!el || !el.dataset || !el.dataset.answerKey) return null;
    return el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && (!el.type || el.type === "text")) ? el : null;
  }
  function measuresKey(testId) { return `portalMeasures:${testId}`; }
  function readMeasures(testId) {
    try {
      const value = JSON.parse(window.sessionStorage.getItem(measuresKey(testId)) || "{}");
      return value && typeof value === "object" ? value : {};
    } catch (e) { return {}; }
  }
  function addMeasure(testId, name, amount) {
    if (!testId || !(amount > 0)) return;
    const all = readMeasures(testId);
    all[name] = (Number(all[name]) || 0) + amount;
    try { window.sessionStorage.setItem(measuresKey(testId), JSON.stringify(all)); } catch (e) { /* storage off */ }
  }
  document.addEventListener("input", (event) => {
    const el = textAnswer(event.target);
    const testId = activeTestId();
    if (!el || !testId) return;
    const key = `${testId}:${el.dataset.answerKey}`;
    const now = Date.now();
    if (lastKeystroke[key] && now - lastKeystroke[key] <= TYPING_GAP_MS) {
      addMeasure(testId, `typing:${el.dataset.answerKey}`, now - lastKeystroke[key]);
    }
    lastKeystroke[key] = now;
  }, true);
  document.addEventListener("focusin", (event) => { if (textAnswer(event.target)) focusedAnswer = event.target; }, true);
  document.addEventListener("focusout", () => {
    // Moving elsewhere on the page ends it; the window losing focus (leaving) does not.
    setTimeout(() => {
      if (document.hasFocus() && document.visibilityState === "visible" && !textAnswer(document.activeElement)) {
        focusedAnswer = null;
      }
    }, 0);
  }, true);
  function leave() {
    const el = textAnswer(document.activeElement) || (focusedAnswer && focusedAnswer.isConnected ? focusedAnswer : null);
    const testId = activeTestId();
    if (awayFrom || !el || !testId) return;
    awayFrom = { testId, key: el.dataset.answerKey, since: Date.now() };
    addMeasure(testId, `leaves:${awayFrom.key}`, 1);
  }
  function comeBack() {
    if (!awayFrom) return;
    addMeasure(awayFrom.testId, `away:${awayFrom.key}`, Date.now() - awayFrom.since);
    awayFrom = null;
  }
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") leave(); else comeBack(); });
  window.addEventListener("blur", (event) => { if (event.target === window) leave(); });
  window.addEventListener("focus", (event) => { if (event.target === window && document.visibilityState === "visible") comeBack(); });
  // The totals of the test shown, in the server's units: seconds (to 0.1) and counts.
  window.portalTaking.measures = function () {
    const testId = activeTestId();
    if (!testId) return null;
    const out = {};
    Object.entries(readMeasures(testId)).forEach(([name, value]) => {
      const number = Number(value);
      if (!Number.isFinite(number)) return;
      out[name] = name.startsWith("leaves:") ? Math.round(number) : Math.round(number / 100) / 10;
    });
    return out;
  };

  // Another tab saved (a confirmed save, not a keystroke): this tab takes that copy when newer.
  window.addEventListener("storage", (event) => {
    const testId = activeTestId();
    const el = timerEl();
    if (!testId || !el || event.key !== el.dataset.store || !event.newValue) return;
    try {
      if (JSON.parse(event.newValue).dirty) return;
    } catch (e) { return; }
    send({ kind: "sync", testId, value: event.newValue });
  });

  // A preference concept is a radio button: the arrow keys move and select, Space selects, and
  // Enter selects too (as the spec's concept cards do).
  document.addEventListener("keydown", (event) => {
    const el = event.target;
    if (event.key === "Enter" && el && el.type === "radio" && el.name === "concept" && !el.checked) {
      event.preventDefault();
      el.click();
    }
  }, true);

  // How far down the screenshot the participant scrolled (the deepest point, in percent), reported
  // when it grows by 10 points or more; the server keeps the deepest as a reading signal.
  const deepest = {};
  document.addEventListener("scroll", (event) => {
    const pane = event.target;
    const img = pane && pane.querySelector ? pane.querySelector("img[data-screenshot]") : null;
    const testId = activeTestId() || Number((img && img.dataset.testId) || 0);
    if (!img || !testId) return;
    const rect = img.getBoundingClientRect();
    const bottom = Math.min(rect.bottom, pane === document ? window.innerHeight : pane.getBoundingClientRect().bottom);
    const percent = Math.round(Math.max(0, Math.min(100, ((bottom - rect.top) / Math.max(1, rect.height)) * 100)));
    const name = img.dataset.screenshot;
    if (percent >= (deepest[name] || 0) + 10 || (percent === 100 && deepest[name] !== 100)) {
      deepest[name] = percent;
      send({ kind: "scroll", testId, page: name, percent });
    }
  }, true);

  document.addEventListener("visibilitychange", () => {
    const testId = activeTestId();
    if (testId && document.visibilityState === "visible") send({ kind: "check", testId });
  });
  setInterval(() => { const testId = activeTestId(); if (testId) send({ kind: "check", testId }); }, POLL_MS);

  function format(ms) {
    const total = Math.max(0, Math.floor(ms / 1000));
    const h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
    const pad = (n) => String(n).padStart(2, "0");
    return h ? `${h}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`;
  }

  function tick() {
    const el = timerEl();
    if (!el) return;
    if (el.dataset.clock !== lastClock) {
      lastClock = el.dataset.clock;
      clockOffset = Number(el.dataset.clock) - Date.now();
    }
    const testId = Number(el.dataset.testId);
    const deadline = Number(el.dataset.deadline);
    if (!deadline) return;
    const remaining = deadline - (Date.now() + clockOffset);
    const text = document.getElementById("taking-timer-text");
    const shown = format(remaining) + " left";
    if (text && text.textContent !== shown) text.textContent = shown;
    const low = remaining < Number(el.dataset.warn) * 1000 ? "true" : "false";
    if (el.dataset.low !== low) el.dataset.low = low;
    const once = (name, fn) => { const k = `${testId}:${deadline}:${name}`; if (!fired[k]) { fired[k] = true; fn(); } };
    const seconds = Number(el.dataset.seconds);
    if (seconds > Number(el.dataset.mid) && remaining <= Number(el.dataset.mid) * 1000 && remaining > 0) {
      once("mid", () => send({ kind: "mid", testId }));
    }
    if (el.dataset.canExtend === "true" && remaining < Number(el.dataset.warn) * 1000 && remaining > 0) {
      once("warn", () => send({ kind: "warn", testId }));
    }
    if (remaining <= 0) {
      // Retried every 5 s until the server agrees the time is up.
      const k = `${testId}:${deadline}:expired`;
      if (!fired[k] || Date.now() - fired[k] > 5000) { fired[k] = Date.now(); send({ kind: "expired", testId }); }
    }
  }
  setInterval(tick, 1000);
  new MutationObserver(() => { if (timerEl()) tick(); }).observe(document.documentElement, { childList: true, subtree: true });

  // Leaving while the time runs asks first (reloads and closing the tab; links out of the test).
  // A view may also ask for the guard whatever the time (a preference test until its thank-you step).
  function guardedTestId() {
    const el = document.querySelector('[data-leave-guard="true"]');
    return el ? Number(el.dataset.testId) : null;
  }
  function guarded() {
    const remaining = window.portalTaking.remainingMs();
    return (remaining !== null && remaining > 0) || guardedTestId() !== null;
  }
  window.addEventListener("beforeunload", (event) => {
    if (guarded()) { event.preventDefault(); event.returnValue = ""; }
  });
  document.addEventListener("click", (event) => {
    const testId = activeTestId() || guardedTestId();
    const link = event.target && event.target.closest ? event.target.closest("a[href]") : null;
    if (!testId || !link) return;
    const url = new URL(link.href, window.location.href);
    if (url.origin === window.location.origin && url.pathname.startsWith(`/test/${testId}/rate`)) return;
    if (guarded() && !window.confirm("Leave the test? Your answers are saved, but the time keeps running.")) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);
})();

// Test images (staff, /admin/tests/{id}/images): the chosen file goes as the request body to the
// upload endpoint, with the progress shown in #upload-<slot>-progress. The size limit and its
// message come with the input (data-max-bytes, data-too-big) from portal/domain/images.py; the
// server checks everything again. Resolves {slot, ok, message} for AdminImagesState.finished.
(function () {
  const NETWORK = "The upload did not finish. Please check your connection and try again.";
  const GENERIC = "Something went wrong, please try again later";

  function upload(slot, url) {
    const input = document.getElementById("upload-" + slot + "-input");
    const file = input && input.files && input.files[0];
    const done = (ok, message) => {
      if (input) input.value = ""; // the same file can be chosen again
      return { slot: slot, ok: ok, message: message || "" };
    };
    if (!file) return Promise.resolve(done(false, ""));
    if (file.size > Number(input.dataset.maxBytes)) return Promise.resolve(done(false, input.dataset.tooBig));
    return new Promise((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", url);
      xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
      xhr.setRequestHeader("Accept", "application/json");
      xhr.upload.addEventListener("progress", (event) => {
        const bar = document.getElementById("upload-" + slot + "-progress");
        if (bar && event.lengthComputable) bar.value = Math.round((100 * event.loaded) / event.total);
      });
      xhr.addEventListener("load", () => {
        let data = {};
        try {
          data = JSON.parse(xhr.responseText || "{}") || {};
        } catch (e) {
          data = {};
        }
        if (xhr.status >= 200 && xhr.status < 300) return resolve(done(true, ""));
        const first = Array.isArray(data.errors) && data.errors[0];
        resolve(done(false, (first && first.message) || GENERIC));
      });
      xhr.addEventListener("error", () => resolve(done(false, NETWORK)));
      xhr.addEventListener("abort", () => resolve(done(false, NETWORK)));
      xhr.send(file);
    });
  }

  window.portalImages = { upload: upload };
})();

// Last line: every window.portal* object above exists. Server events that call into this file
// (states/browser.portal_call) wait for this flag, since an event can reach a page before the script.
window.portalJsLoaded = true;
