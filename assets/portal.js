// Calls to the portal's HTTP endpoints that must set or clear the HttpOnly session cookie.
// The password goes straight from the form to /api/account/sign-in; it never enters app state.
(function () {
  const GENERIC = "Something went wrong, please try again later";

  async function postJson(url, body) {
    const response = await fetch(url, {
      method: "POST",
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

  function remember(method) {
    try {
      window.localStorage.setItem("lastLoginMethod", method);
    } catch (e) {
      /* storage may be disabled; the badge is a convenience only */
    }
  }

  window.portalAuth = {
    async signIn(formId) {
      const form = document.getElementById(formId);
      const fields = new FormData(form);
      const to = new URLSearchParams(window.location.search).get("to") || "";
      let result;
      try {
        result = await postJson("/api/account/sign-in", {
          email: fields.get("email") || "",
          password: fields.get("password") || "",
          to: to,
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
  };
})();
