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

    async signOut() {
      try {
        await postJson("/api/account/logout", {});
      } catch (e) {
        /* go to sign-in anyway */
      }
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
  };
})();
